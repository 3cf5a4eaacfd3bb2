import { HomePage } from "@/components/home/HomePage";

export default function Home() {
  return <HomePage />;
}
