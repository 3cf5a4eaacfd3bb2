import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { clientAddress } from "@/lib/http/client-address";
import { mcpBodyLimit, readMcpBody } from "@/lib/http/mcp-body";
import { apiBase } from "@/lib/http/request-context";
import { CORS_HEADERS, handle, methodNotAllowed } from "@/lib/http/respond";
import { createMcpServer } from "@/lib/mcp/server";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
export const maxDuration = 300;

/** MCP clients in browsers send and read these besides the API's own. */
const MCP_CORS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": `${CORS_HEADERS["access-control-allow-headers"]}, mcp-protocol-version, mcp-session-id, last-event-id`,
  "access-control-expose-headers": `${CORS_HEADERS["access-control-expose-headers"]}, mcp-session-id`,
};

/**
 * Stateless Streamable HTTP: a server and a transport per request, answered as JSON (no stream to GET, no session
 * to DELETE). The body is read here first, bounded in size and time (lib/http/mcp-body.ts), so the SDK parses
 * only a body that arrived whole and in time; no place is held while it arrives (a tool call takes its own).
 */
export const POST = handle(async (request: Request) => {
  const services = getServices();
  const { config } = services;
  const body = await readMcpBody(request, config);
  const server = createMcpServer(services, {
    client: clientAddress(request.headers, config),
    apiBase: apiBase(request, config),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: mcpBodyLimit(config),
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(body);
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(MCP_CORS)) headers.set(name, value);
    return new Response(await response.arrayBuffer(), { status: response.status, headers });
  } finally {
    await server.close();
  }
});

export const GET = handle(async () => methodNotAllowed("POST"));
export const DELETE = handle(async () => methodNotAllowed("POST"));
export const OPTIONS = async () => new Response(null, { status: 204, headers: MCP_CORS });
