"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { ThemeToggle } from "./ThemeToggle";

const NAV = [
  { href: "/", label: "Home" },
  { href: "/docs", label: "Docs" },
] as const;

const isCurrent = (pathname: string, href: string) =>
  href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);

export function SiteHeader() {
  const pathname = usePathname() ?? "/";
  return (
    <header className="sticky top-0 z-30 border-b border-line bg-bg/85 backdrop-blur supports-[backdrop-filter]:bg-bg/70">
      <div className="mx-auto flex h-16 max-w-6xl items-center gap-4 px-4 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded-md font-semibold tracking-tight text-fg">
          <LogoMark />
          <span className="text-lg">Chunkwise</span>
        </Link>
        <nav aria-label="Main" className="ml-auto flex items-center gap-1 sm:ml-8 sm:mr-auto">
          {NAV.map((item) => {
            const current = isCurrent(pathname, item.href);
            return (
              <Link
                key={item.href}
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={`rounded-md px-3 py-2 text-sm font-medium transition-colors ${current ? "bg-surface-2 text-fg" : "text-muted hover:bg-surface-2 hover:text-fg"}`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <ThemeToggle />
      </div>
    </header>
  );
}

function LogoMark() {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className="size-7">
      <rect x="3" y="4" width="26" height="6" rx="2" className="fill-accent" />
      <rect x="3" y="13" width="19" height="6" rx="2" className="fill-accent opacity-70" />
      <rect x="3" y="22" width="23" height="6" rx="2" className="fill-accent opacity-45" />
    </svg>
  );
}
