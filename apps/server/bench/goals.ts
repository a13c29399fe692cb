/*
 * The speed goals of issue 27, one row each, and what a run of `npm run bench` measured for them on each
 * database: the table `npm run bench` ends with. A goal is a bound on one figure (at most, or at least); a
 * figure the run did not measure (a bench left out with --only, PostgreSQL without BENCH_DATABASE_URL) is said
 * as not measured, never as met.
 */

export type Dialect = 'sqlite' | 'postgres';

export interface Goal {
  /** What is measured, as the issue's table names it. */
  what: string;
  unit: 'ms' | 'ratio' | 'pages/s';
  /** `max`: the figure must be at most `bound`; `min`: at least. */
  kind: 'max' | 'min';
  bound: number;
}

/** The goals, in the issue's order; each bench's rows name one of these by its key. */
export const GOALS = {
  importTime: { what: 'Git import, 5,000 pages', unit: 'ms', kind: 'max', bound: 2_000 },
  editMedian: { what: 'one-page edit, 10,000-page space, warm median', unit: 'ms', kind: 'max', bound: 15 },
  reindexAfterEdit: { what: 'search reindex after one edit, 50,000 pages', unit: 'ms', kind: 'max', bound: 20 },
  commonWordP99: { what: 'search, common word (91% of 50,000 pages), p99, top 10 as uncapped', unit: 'ms', kind: 'max', bound: 20 },
  getSpaceRatio: { what: 'GET /v1/spaces/{spaceId}, ratio to bare node:http', unit: 'ratio', kind: 'min', bound: 0.35 },
  getSpaceP99: { what: 'GET /v1/spaces/{spaceId}, p99', unit: 'ms', kind: 'max', bound: 10 },
  listRatio: { what: 'list of 100 spaces, ratio to bare node:http', unit: 'ratio', kind: 'min', bound: 0.2 },
  firstAnswer: { what: 'first answer after start', unit: 'ms', kind: 'max', bound: 700 },
  readerFirstRenderP99: { what: 'reader, first render of an uncached page, p99', unit: 'ms', kind: 'max', bound: 50 },
  readerCachedRatio: { what: 'reader, cached page, ratio to bare node:http', unit: 'ratio', kind: 'min', bound: 0.7 },
} as const satisfies Record<string, Goal>;

export type GoalKey = keyof typeof GOALS;

/** One figure a bench measured for a goal on one database; `met: false` with `why` when a condition failed. */
export interface GoalFigure {
  goal: GoalKey;
  dialect: Dialect;
  value: number;
  /** A condition besides the bound (the top 10 equal to the uncapped search's); false makes the row missed. */
  condition?: { holds: boolean; says: string };
}

export function isMet(figure: GoalFigure): boolean {
  const goal: Goal = GOALS[figure.goal];
  const withinBound = goal.kind === 'max' ? figure.value <= goal.bound : figure.value >= goal.bound;
  return withinBound && (figure.condition?.holds ?? true);
}

function formatValue(value: number, unit: Goal['unit']): string {
  return unit === 'ratio' ? value.toFixed(3) : unit === 'ms' ? `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ms` : `${value.toFixed(0)} pages/s`;
}

function formatBound(goal: Goal): string {
  return `${goal.kind === 'max' ? '<=' : '>='} ${formatValue(goal.bound, goal.unit)}`;
}

/**
 * The table: one line per goal, a column per database with the figure and whether it is met. When one goal
 * has several figures on a database (HTTP with 1 and 2 processes), the worst decides.
 */
export function formatGoals(figures: GoalFigure[]): string {
  const dialects: Dialect[] = ['sqlite', 'postgres'];
  const lines = ['goals of issue 27 (figure, and whether the goal is met; "-" = not measured in this run)', `${'what'.padEnd(70)} ${'goal'.padEnd(12)} ${dialects.map((dialect) => dialect.padEnd(26)).join(' ')}`.trimEnd()];
  for (const [key, goal] of Object.entries(GOALS) as Array<[GoalKey, Goal]>) {
    const cells = dialects.map((dialect) => {
      const mine = figures.filter((figure) => figure.goal === key && figure.dialect === dialect);
      if (mine.length === 0) return '-'.padEnd(26);
      const worst = mine.reduce((a, b) => (goal.kind === 'max' ? (b.value > a.value ? b : a) : b.value < a.value ? b : a));
      const met = mine.every(isMet);
      const failedCondition = mine.find((figure) => figure.condition && !figure.condition.holds);
      return `${formatValue(worst.value, goal.unit)} ${met ? 'met' : `MISSED${failedCondition ? ` (${failedCondition.condition!.says})` : ''}`}`.padEnd(26);
    });
    lines.push(`${goal.what.padEnd(70)} ${formatBound(goal).padEnd(12)} ${cells.join(' ')}`.trimEnd());
  }
  return lines.join('\n');
}
