/**
 * The Publish button's work: refuses to send while a staged price is wrong, sends the rest, keeps
 * what did not go through staged with the cloud's words, and collects the publications to follow.
 */
import { useState } from 'preact/hooks';
import type { MenuItem } from './api.ts';
import { publishStaged, type Run } from './publish.ts';
import { priceProblems, type Staged, type Staging } from './staging.ts';

/** The cloud's refusal of a price, shown while the same price is still staged. */
type Refused = Map<string, { text: string | undefined; message: string }>;

function stillRefused(refused: Refused, staged: Map<string, Staged>): Array<[string, string]> {
  return [...refused].flatMap(([id, r]) =>
    staged.get(id)?.price === r.text ? [[id, r.message] as [string, string]] : [],
  );
}

export function usePublish(scope: {
  brandId: string | undefined;
  storeId: string | undefined;
  staging: Staging;
  items: MenuItem[];
  reload: () => void;
}) {
  const { staging } = scope;
  const [runs, setRuns] = useState<Run[]>([]);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  /** After a refused Publish, a wrong price is flagged even while its field has focus. */
  const [insist, setInsist] = useState(false);
  const [refused, setRefused] = useState<Refused>(new Map());
  const problems = new Map([...priceProblems(staging.staged), ...stillRefused(refused, staging.staged)]);

  const publish = async () => {
    setFailure(undefined);
    if (!scope.brandId) return;
    if (problems.size > 0) {
      setInsist(true);
      document.querySelector<HTMLInputElement>('.menu-table input[aria-invalid="true"]')?.focus();
      return;
    }
    setInsist(false);
    setBusy(true);
    const names = new Map(scope.items.map((i) => [i.id, i.name]));
    const nameOf = (id: string) => names.get(id) ?? 'An item';
    const outcome = await publishStaged(scope.brandId, scope.storeId, staging.staged, nameOf);
    staging.keep(outcome.remaining);
    if (outcome.runs.length > 0) setRuns((before) => [...before, ...outcome.runs]);
    setFailure(outcome.error);
    const texts = [...outcome.fieldErrors].map(
      ([id, message]) => [id, { text: outcome.remaining.get(id)?.price, message }] as const,
    );
    setRefused(new Map(texts));
    setBusy(false);
    scope.reload();
  };
  const follow = (run: Run) => setRuns((before) => [...before, run]);
  const notice =
    insist && problems.size > 0 ? 'Nothing was sent: fix the prices marked below first.' : undefined;
  return { runs, busy, failure, notice, insist, problems, publish, follow, dismiss: () => setRuns([]) };
}
