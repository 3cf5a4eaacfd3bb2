import type { Metadata } from "next";
import { JobView } from "@/components/jobs/JobView";

export const metadata: Metadata = {
  title: "AI-Pro job",
  description: "Progress and result of a chunking job (ai-pro, or a long scan), kept for one hour.",
};

/** A job's own page (`/jobs/<job_id>`): everything happens client-side against `/api/job/...`. */
export default async function JobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <JobView jobId={id} />;
}
