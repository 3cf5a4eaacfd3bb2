"use client";

import { useSyncExternalStore } from "react";
import { type Theme, chooseTheme, currentTheme, followSystemTheme } from "@/web/theme";

function subscribe(onChange: () => void): () => void {
  // The class on <html> is the truth (the boot script set it before hydration); watch it and the system's setting.
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  const unfollow = followSystemTheme(onChange);
  return () => {
    observer.disconnect();
    unfollow();
  };
}

const serverTheme = (): Theme | null => null;

/** A toggle button ("Dark theme", pressed or not); the icon follows the `dark` class by CSS, so it is right before hydration too. */
export function ThemeToggle() {
  const theme = useSyncExternalStore<Theme | null>(subscribe, currentTheme, serverTheme);
  const dark = theme === "dark";
  return (
    <button
      type="button"
      aria-label="Dark theme"
      aria-pressed={theme === null ? undefined : dark}
      title={dark ? "Switch to the light theme" : "Switch to the dark theme"}
      onClick={() => chooseTheme(dark ? "light" : "dark")}
      className="inline-flex size-10 items-center justify-center rounded-lg border border-line bg-surface text-fg transition-colors hover:bg-surface-2"
    >
      {/* Moon in light mode (what a press gives), sun in dark mode. */}
      <svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        className="size-5 dark:hidden"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8Z" />
      </svg>
      <svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        className="hidden size-5 dark:block"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
      >
        <circle cx="12" cy="12" r="4" />
        <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
      </svg>
    </button>
  );
}
