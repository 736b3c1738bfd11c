// esbuild bundles imported CSS into the hashed stylesheet.
declare module '*.css';
