import type { Metadata } from "next";
import { JobView } from "@/components/jobs/JobView";

export const metadata: Metadata = {
  title: "AI-Pro job",
  description: "Progress and result of an ai-pro chunking job, kept for one hour.",
};

/** An ai-pro job's own page (`/jobs/<job_id>`): everything happens client-side against `/api/job/...`. */
export default async function JobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <JobView jobId={id} />;
}
