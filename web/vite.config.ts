/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: the bundle-budget check (scripts/bundle-budget.mjs) reads the chunk graph.
    manifest: true,
    // package.json "sideEffects" lists the only modules imported for their side effects (CSS, main.tsx,
    // zod-config), so the bundler drops what a feature's index.ts re-exports but a chunk does not use; a new
    // side-effect-only import must be added there.
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    restoreMocks: true,
    // Shared 2-core machines: antd screens in jsdom can take seconds under load.
    testTimeout: 20_000,
  },
});
