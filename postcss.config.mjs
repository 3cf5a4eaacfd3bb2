/** Tailwind CSS v4 runs as a PostCSS plugin; everything else (tokens, variants) lives in app/globals.css. */
const config = {
  plugins: { "@tailwindcss/postcss": {} },
};

export default config;
