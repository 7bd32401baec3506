import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { SubmitOrCancel } from '../../components/submit-or-cancel';
import { Show, useLoad } from '../../components/ui';

type Rules = Schemas['TokenPolicy']['rules'];
type ActionClass = keyof Rules;
type Decision = Rules[ActionClass];

/**
 * What each action class lets a token do, in the owner's words. The editor lists the classes the
 * API answers (the policy's rules), so a class the server adds is shown even before it is worded
 * here; typing this as a record of the schema's classes makes the check fail until it is.
 */
const CLASSES: Record<ActionClass, string> = {
  'devices.exec': 'Run commands on your PCs',
  'devices.write': 'Write files and make folders on your PCs',
  'devices.delete': 'Delete files on your PCs',
  'mail.send': 'Send mail as you',
  'mail.trash': 'Move your mail to the trash',
  'files.upload': 'Upload files to your storage',
  'files.delete': 'Delete files in your storage',
  'services.write': 'Act on connected services (anything but reading), change or delete connectors, disconnect accounts',
  'memory.write': 'Add or change memories',
  'memory.delete': 'Delete memories',
  'knowledge.write': 'Add, change or overwrite knowledge-base documents',
  'knowledge.delete': 'Delete knowledge-base documents',
  'identity.write': 'Change your identity and preferences',
  'personas.write': 'Create, change or switch personas',
  'personas.delete': 'Delete personas',
  'skills.write': 'Create, change or switch skills',
  'skills.delete': 'Delete skills',
  'chat.delete': 'Delete chat conversations',
  'marketplace.write': 'Publish, change, rate or install marketplace listings',
  'vault.write': 'Store or delete vault secrets',
};

const DECISIONS: Array<{ value: Decision; label: string }> = [
  { value: 'allow', label: 'Allow' },
  { value: 'ask', label: 'Ask me' },
  { value: 'deny', label: 'Deny' },
];

/** A token's policy: for each risky action, whether the token may do it, must ask, or may not. */
export function PolicyEditor({ token, onClose }: { token: Schemas['Token']; onClose: () => void }) {
  const policy = useLoad(async () => unwrap(await api.GET('/api/v1/tokens/{id}/policy', { params: { path: { id: token.id } } })).data, [token.id]);
  return (
    <section className="policy stack" aria-label={`Policy of ${token.name}`}>
      <Show loaded={policy} what="Loading policy">
        {(loaded) => <PolicyForm token={token} rules={loaded.rules} reachable={loaded.reachable} onClose={onClose} />}
      </Show>
    </section>
  );
}

function PolicyForm({ token, rules, reachable, onClose }: { token: Schemas['Token']; rules: Rules; reachable: ActionClass[]; onClose: () => void }) {
  const [draft, setDraft] = useState<Rules>(rules);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const baseId = useId();
  // Only what the token's scopes can meet; a rule already set for another class stays in sight.
  const shown = (Object.keys(draft) as ActionClass[]).filter((name) => reachable.includes(name) || draft[name] !== 'allow');
  const hidden = Object.keys(draft).length - shown.length;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    void action.run(async () => {
      const answer = unwrap(await api.PUT('/api/v1/tokens/{id}/policy', { params: { path: { id: token.id } }, body: { rules: draft } }));
      setDraft(answer.data.rules);
      setSaved(true);
    });
  };
  return (
    <form className="stack" onSubmit={submit}>
      <p className="muted">
        What "{token.name}" may do without you. "Ask me" holds the request until you approve it on the Home page; "Deny" refuses it.
      </p>
      <ul className="policy-rules">
        {shown.map((name) => {
          const id = `${baseId}-${name}`;
          return (
            <li key={name} className="policy-rule">
              <label htmlFor={id}>
                <span className="mono">{name}</span> <span className="muted">{CLASSES[name]}</span>
              </label>
              <select
                id={id}
                value={draft[name]}
                onChange={(event) => {
                  const value = event.currentTarget.value as Decision;
                  setSaved(false);
                  setDraft((previous) => ({ ...previous, [name]: value }));
                }}
              >
                {DECISIONS.map((decision) => (
                  <option key={decision.value} value={decision.value}>
                    {decision.label}
                  </option>
                ))}
              </select>
            </li>
          );
        })}
      </ul>
      {hidden > 0 ? (
        <p className="muted">
          {hidden === 1 ? 'One other action is' : `${hidden} other actions are`} out of this token's scopes, so no rule for {hidden === 1 ? 'it' : 'them'} could apply.
        </p>
      ) : null}
      <SubmitOrCancel label="Save policy" busy={action.busy} onCancel={onClose} />
      {saved ? (
        <p role="status" className="ok">
          Policy saved.
        </p>
      ) : null}
      <ActionError error={action.error} />
    </form>
  );
}
