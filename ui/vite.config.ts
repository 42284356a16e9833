import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vitest/config";

// The UI is served from the root of `kaiport serve` and loaded from files by the desktop shell:
// relative asset paths work for both.
export default defineConfig({
  base: "./",
  plugins: [svelte()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 1024,
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
