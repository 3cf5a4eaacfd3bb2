import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator";

/**
 * x402's reference facilitator (`@x402/core`'s x402Facilitator with
 * `@x402/svm`'s exact scheme) behind the facilitator HTTP API (POST /verify,
 * POST /settle, version 2) on the local chain: the stand-in for a hosted
 * facilitator, which tests cannot reach. The local chain mirrors devnet.
 */
export async function startReferenceFacilitator(
  rpcUrl: string,
  feePayerSecret: string,
): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(feePayerSecret));
  const facilitator = new x402Facilitator();
  registerExactSvmScheme(facilitator, {
    signer: toFacilitatorSvmSigner(signer, { defaultRpcUrl: rpcUrl }),
    networks: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  });
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url ?? "");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { paymentPayload, paymentRequirements } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const answer =
      req.url === "/verify"
        ? await facilitator.verify(paymentPayload, paymentRequirements)
        : await facilitator.settle(paymentPayload, paymentRequirements);
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
