// Client-side routing on the History API. The app lives under /det/ as
// upstream's does (det-master answers index.html for every path under it,
// vite.config.ts builds the bundle with that base): the app's own paths
// ("/experiments/7") are written without it, href() and navigate() add it
// and useLocation() takes it off.
import { useEffect, useState } from "preact/hooks";

export const base = "/det";

const listeners = new Set<() => void>();

/** The URL of app path `to` ("/experiments" -> "/det/experiments"). */
export function href(to: string): string {
  return base + (to.startsWith("/") ? to : "/" + to);
}

/** The app path of a URL path ("/det/experiments" -> "/experiments"). */
export function appPath(pathname: string): string {
  if (pathname === base) return "/";
  return pathname.startsWith(base + "/") ? pathname.slice(base.length) : pathname;
}

/** Goes to app path `to` (with its query). */
export function navigate(to: string, replace = false) {
  const url = href(to);
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
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
  return { path: appPath(location.pathname), query: new URLSearchParams(location.search) };
}

/** An <a href={href(...)}> that navigates inside the app (a modified click
 * opens a tab). */
export function linkHandler(e: MouseEvent) {
  const a = (e.currentTarget as HTMLAnchorElement) ?? null;
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(appPath(a.getAttribute("href") || base + "/"));
}
