import type { components } from '@quire/api-types';
import { useState, type FormEvent } from 'react';

export type MergeRule = components['schemas']['MergeRule'];
export type MergeRulesValue = { type: 'inherit' } | { type: 'none' } | { type: 'rules'; rules: MergeRule[] };

/** The kinds of rule that take no parameters. */
type SimpleRule = Exclude<MergeRule['rule'], 'custom' | 'require_specific_reviewers' | 'require_one_of_specific_reviewers' | 'allow_bypass'>;

/** The rules without parameters, as a person reads them: what a change request must meet to be merged. */
const SIMPLE_RULES: ReadonlyArray<{ rule: SimpleRule; label: string }> = [
  { rule: 'require_at_least_one_review', label: 'Someone other than the author has reviewed it' },
  { rule: 'require_at_least_one_approved_review', label: 'At least one review approves it' },
  { rule: 'require_all_reviews_approved', label: 'No review asks for changes' },
  { rule: 'require_up_to_date_change_request', label: 'It holds the latest main content (no update pending)' },
  { rule: 'require_change_request_subject', label: 'It has a subject' },
  { rule: 'require_change_request_description', label: 'It has a description' },
  { rule: 'require_author_to_merge', label: 'Only its author may merge it' },
  { rule: 'require_agent_review', label: 'An automated review agent has reviewed it' },
];

const isSimple = (rule: MergeRule): boolean => SIMPLE_RULES.some((item) => item.rule === rule.rule);

function describeOther(rule: MergeRule): string {
  if (rule.rule === 'custom') return `A custom condition: ${rule.expression}`;
  if ('users' in rule) {
    const count = rule.users.length;
    if (rule.rule === 'require_specific_reviewers') return `${count} named reviewers must all approve`;
    if (rule.rule === 'require_one_of_specific_reviewers') return `One of ${count} named reviewers must approve`;
    return `${count} named people may merge even when other rules fail`;
  }
  return rule.rule;
}

/**
 * Choosing merge rules: none, the listed rules (the ones without parameters as check boxes; rules naming
 * people or a custom condition, set through the API, are listed and kept as they are), or, for a space, the
 * organization's. `idPrefix` keeps ids unique when two editors share a page.
 */
export function MergeRulesEditor({
  idPrefix,
  legend,
  value,
  allowInherit,
  busy,
  onSave,
}: {
  idPrefix: string;
  legend: string;
  value: MergeRulesValue;
  allowInherit: boolean;
  busy: boolean;
  onSave: (next: MergeRulesValue) => void;
}) {
  const [type, setType] = useState(value.type);
  const current = value.type === 'rules' ? value.rules : [];
  const [chosen, setChosen] = useState<SimpleRule[]>(current.filter(isSimple).map((rule) => rule.rule as SimpleRule));
  const kept = current.filter((rule) => !isSimple(rule));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (type === 'rules') onSave({ type, rules: [...chosen.map((rule) => ({ rule })), ...kept] });
    else onSave({ type });
  };
  const modes: Array<{ type: MergeRulesValue['type']; label: string }> = [
    ...(allowInherit ? [{ type: 'inherit' as const, label: "The organization's rules" }] : []),
    { type: 'none', label: 'No rules: any change request can be merged without review' },
    { type: 'rules', label: 'These rules, all of which must pass' },
  ];
  return (
    <form className="rules-form" onSubmit={submit}>
      <fieldset>
        <legend>{legend}</legend>
        {modes.map((mode) => (
          <label key={mode.type} className="check">
            <input type="radio" name={`${idPrefix}-mode`} checked={type === mode.type} onChange={() => setType(mode.type)} />
            {mode.label}
          </label>
        ))}
        {type === 'rules' ? (
          <fieldset className="nested">
            <legend>A change request can be merged when</legend>
            {SIMPLE_RULES.map((item) => (
              <label key={item.rule} className="check">
                <input
                  type="checkbox"
                  checked={chosen.includes(item.rule)}
                  onChange={(event) => setChosen((now) => (event.target.checked ? [...now, item.rule] : now.filter((rule) => rule !== item.rule)))}
                />
                {item.label}
              </label>
            ))}
            {kept.length > 0 ? (
              <div>
                <p>Also kept as they are (set through the API):</p>
                <ul className="list">
                  {kept.map((rule, index) => (
                    <li key={index}>{describeOther(rule)}</li>
                  ))}
                </ul>
              </div>
            ) : null}
          </fieldset>
        ) : null}
        <button type="submit" disabled={busy}>
          Save merge rules
        </button>
      </fieldset>
    </form>
  );
}
