import { defineConfig } from "vite";

// The bundle det-master serves: index.html (never cached) and assets/
// named by content hash (cached for a year). The output folder is given on
// the command line by `make` (BUILD/webui).
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    target: "es2020",
    assetsDir: "assets",
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
});
