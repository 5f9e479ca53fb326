import { defineConfig } from "vite";

// The bundle det-master serves under /det/ (upstream's WebUI root; every
// asset URL starts with it): index.html (never cached) and assets/ named by
// content hash (cached for a year). The output folder is given on the
// command line by `make` (BUILD/webui).
export default defineConfig({
  base: "/det/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    target: "es2020",
    assetsDir: "assets",
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
});
