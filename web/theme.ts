/**
 * Light or dark: the system's choice unless the person picked one with the
 * header's toggle, which is remembered in localStorage. The class on <html>
 * drives Tailwind's `dark:` variant and the design tokens in globals.css.
 */
export type Theme = "light" | "dark";

const THEME_STORAGE_KEY = "chunkwise-theme";

/**
 * Runs inline in <head> before the first paint, so a stored or system dark
 * theme never flashes light. Kept tiny and dependency-free on purpose; it
 * mirrors `applyTheme` below.
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var s=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});var d=s==="dark"||(s!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches);var e=document.documentElement;e.classList.toggle("dark",d);e.style.colorScheme=d?"dark":"light"}catch(_){}})()`;

function storedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(THEME_STORAGE_KEY);
    return value === "light" || value === "dark" ? value : null;
  } catch {
    return null;
  }
}

const systemTheme = (): Theme => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");

export const currentTheme = (): Theme => (document.documentElement.classList.contains("dark") ? "dark" : "light");

function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  root.classList.toggle("dark", theme === "dark");
  root.style.colorScheme = theme;
}

/** The person's explicit choice: applied and remembered. */
export function chooseTheme(theme: Theme): void {
  applyTheme(theme);
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Private mode or storage disabled: the choice lasts for this page only.
  }
}

/** Follows the system's changes for as long as the person has not chosen; returns the unsubscribe. */
export function followSystemTheme(onChange: (theme: Theme) => void): () => void {
  const query = matchMedia("(prefers-color-scheme: dark)");
  const listener = () => {
    if (storedTheme() !== null) return;
    const theme = systemTheme();
    applyTheme(theme);
    onChange(theme);
  };
  query.addEventListener("change", listener);
  return () => query.removeEventListener("change", listener);
}
