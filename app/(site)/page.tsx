/** A placeholder front page until the web app lands: how to call the API today. */
export default function Home() {
  return (
    <main>
      <h1>Chunkwise</h1>
      <p>Document chunking for retrieval pipelines and LLM context windows. The API lives under <a href="/api">/api</a>.</p>
      <h2>Try the free tier</h2>
      <pre>
        <code>curl -F file=@report.pdf http://localhost:3000/api/chunk/free</code>
      </pre>
      <p>
        <a href="/api">GET /api</a> lists the tiers, prices, defaults and limits; <a href="/api/health">/api/health</a> reports health.
      </p>
    </main>
  );
}
