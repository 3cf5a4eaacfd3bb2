"use client";

import type { TierInfo, TierId } from "@/web/api-client";
import { tierName, tierPrice } from "@/web/labels";

interface Props {
  tiers: TierInfo[];
  value: TierId;
  onChange: (tier: TierId) => void;
  disabled?: boolean;
}

/**
 * The tiers `GET /api` lists, as real radio inputs styled as cards: Tab
 * enters the group, arrow keys move the choice (skipping unavailable tiers),
 * and each card's text is the radio's label and description.
 */
export function TierPicker({ tiers, value, onChange, disabled }: Props) {
  return (
    <fieldset disabled={disabled} className="min-w-0">
      <legend className="sr-only">Tier</legend>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {tiers.map((tier) => (
          <TierCard key={tier.id} tier={tier} checked={tier.id === value} onChange={onChange} />
        ))}
      </div>
    </fieldset>
  );
}

function TierCard({ tier, checked, onChange }: { tier: TierInfo; checked: boolean; onChange: (tier: TierId) => void }) {
  const id = `tier-${tier.id}`;
  const unavailable = !tier.available;
  return (
    <label
      htmlFor={id}
      className={`relative flex min-h-44 flex-col gap-2 rounded-xl border bg-surface p-4 transition-[border-color,box-shadow] has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-ring ${
        unavailable
          ? "cursor-not-allowed border-dashed border-line opacity-75"
          : checked
            ? "cursor-pointer border-accent shadow-[0_0_0_1px_var(--accent)]"
            : "cursor-pointer border-line hover:border-line-strong"
      }`}
    >
      <span className="flex items-start justify-between gap-3">
        <span className="flex items-center gap-2.5">
          <input
            id={id}
            type="radio"
            name="tier"
            value={tier.id}
            checked={checked}
            disabled={unavailable}
            onChange={() => onChange(tier.id)}
            // The card's name alone: the label wraps the whole card, whose price and details are the description.
            aria-labelledby={`${id}-name`}
            aria-describedby={`${id}-price ${id}-details`}
            className="size-4 shrink-0 accent-[var(--accent)]"
          />
          <span id={`${id}-name`} className="text-base font-semibold text-fg">
            {tierName(tier.id)}
          </span>
        </span>
        <span
          className={`shrink-0 rounded-full px-2 py-0.5 text-xs font-medium ${tier.mode === "async" ? "bg-warning-soft text-warning" : "bg-surface-2 text-muted"}`}
        >
          {tier.mode === "async" ? "Async job" : "Instant"}
        </span>
      </span>
      <span id={`${id}-price`} className="text-lg font-semibold tabular-nums text-fg">
        {tierPrice(tier)}
        {tier.price_base_units > 0 ? <span className="text-sm font-normal text-muted"> per document</span> : null}
      </span>
      <span id={`${id}-details`} className="flex flex-col gap-1.5 text-sm">
        <span className="text-fg">{tier.method}</span>
        <span className="text-muted">
          <span className="font-medium">Good for:</span> {tier.good_for}
        </span>
        {unavailable ? (
          <span className="mt-1 rounded-md bg-surface-2 px-2 py-1.5 text-muted">
            <span className="font-medium text-fg">Unavailable here.</span>{" "}
            {tier.reason ?? "This server cannot run this tier right now."}
          </span>
        ) : null}
      </span>
    </label>
  );
}

export function TierPickerSkeleton() {
  return (
    <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-hidden="true">
      {Array.from({ length: 5 }, (_, i) => (
        <div key={i} className="min-h-44 animate-pulse rounded-xl border border-line bg-surface p-4">
          <div className="h-5 w-24 rounded bg-surface-2" />
          <div className="mt-3 h-6 w-20 rounded bg-surface-2" />
          <div className="mt-4 h-4 w-full rounded bg-surface-2" />
          <div className="mt-2 h-4 w-3/4 rounded bg-surface-2" />
        </div>
      ))}
    </div>
  );
}
