import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";
import { settle as referenceSettle, verify as referenceVerify } from "x402/facilitator";

/**
 * x402 1.2.0's own facilitator functions behind the facilitator HTTP API
 * (POST /verify, POST /settle) on the local chain: the stand-in for a hosted
 * facilitator, which tests cannot reach.
 */
export async function startReferenceFacilitator(
  rpcUrl: string,
  feePayerSecret: string,
): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(feePayerSecret));
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url ?? "");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { paymentPayload, paymentRequirements } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const config = { svmConfig: { rpcUrl } };
    const answer =
      req.url === "/verify"
        ? await referenceVerify(signer, paymentPayload, paymentRequirements, config)
        : await referenceSettle(signer, paymentPayload, paymentRequirements, config);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
