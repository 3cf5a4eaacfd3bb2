/** The paid flow's buttons, in the site's tokens (one place, so every action looks alike). */
const base =
  "inline-flex min-h-11 items-center justify-center gap-2 rounded-lg px-4 py-2.5 text-sm font-semibold transition-colors disabled:cursor-not-allowed disabled:opacity-55";

export const primaryButton = `${base} bg-accent text-accent-fg hover:bg-accent-hover disabled:hover:bg-accent`;
export const secondaryButton = `${base} border border-line-strong bg-surface text-fg hover:bg-surface-2`;
export const quietButton = `${base} text-muted hover:bg-surface-2 hover:text-fg`;
