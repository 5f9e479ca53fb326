// Client-side routing on the History API: det-master answers index.html for
// every page path, the app picks the page from location.pathname.
import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false) {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  listeners.forEach((l) => l());
}

window.addEventListener("popstate", () => listeners.forEach((l) => l()));

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** An <a> that navigates inside the app (a modified click opens a tab). */
export function linkHandler(e: MouseEvent) {
  const a = (e.currentTarget as HTMLAnchorElement) ?? null;
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href") || "/");
}
