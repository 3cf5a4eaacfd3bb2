import Link from "next/link";

export function SiteFooter() {
  return (
    <footer className="mt-16 border-t border-line">
      <div className="mx-auto flex max-w-6xl flex-col gap-3 px-4 py-8 text-sm text-muted sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <p>Chunkwise: document chunking for retrieval pipelines, paid per request in USDC on Solana.</p>
        <nav aria-label="Footer">
          <ul className="flex flex-wrap gap-x-5 gap-y-2">
            <li>
              <Link href="/docs" className="rounded underline-offset-4 hover:text-fg hover:underline">
                API docs
              </Link>
            </li>
            <li>
              {/* A JSON endpoint, not a page: a plain link, so the browser loads it whole. */}
              {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
              <a href="/api" className="rounded underline-offset-4 hover:text-fg hover:underline">
                GET /api
              </a>
            </li>
            <li>
              <a href="/api/openapi.json" className="rounded underline-offset-4 hover:text-fg hover:underline">
                OpenAPI
              </a>
            </li>
            <li>
              {/* A JSON endpoint, not a page: a plain link, so the browser loads it whole. */}
              {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
              <a href="/api/health" className="rounded underline-offset-4 hover:text-fg hover:underline">
                Status
              </a>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
