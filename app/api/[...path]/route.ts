import { ApiError } from "@/lib/ground/errors";
import { handle } from "@/lib/http/respond";

/** Unknown API paths answer with the JSON error body instead of Next's HTML 404 page. */
const notFound = handle(async (request: Request) => {
  throw new ApiError("not_found", `No API endpoint at ${new URL(request.url).pathname}. GET /api lists the endpoints.`);
});

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
