import { useEffect, useState, type FormEvent } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';
import { AttachmentList, MAX_ATTACHMENTS, useAttachments, useFileDrop } from './compose/Attachments.tsx';
import { AutocompleteTextarea } from './compose/Autocomplete.tsx';
import { LanguageSelect, ScheduleInput, scheduledAt } from './compose/PostOptions.tsx';
import { loadDraft, saveDraft } from './saved-draft.ts';
import { postingDefaults } from './client-settings.ts';

/** Counts as Mastodon does for the limit (close enough for the counter: each code point is one). */
function length(text: string): number {
  return [...text].length;
}

export function Compose() {
  const { post, maxCharacters, upload, request, draft, clearDraft, server, me } = useSocialClient();
  const editing = draft?.editing ?? null;
  const [saved] = useState(() => loadDraft(server, me?.acct));
  const [error, setError] = useState<string | null>(null);
  const { attachments, attach, remove, move, update, clear } = useAttachments(upload, setError);
  const drop = useFileDrop((files) => (editing ? undefined : attach(files)));
  const [sensitive, setSensitive] = useState(false);
  const [poll, setPoll] = useState<{ options: string[]; expiresIn: number } | null>(null);
  const [text, setText] = useState(saved?.text ?? '');
  const [spoiler, setSpoiler] = useState(saved?.spoiler ?? '');
  const preferred = postingDefaults(me);
  const [visibility, setVisibility] = useState(saved?.visibility ?? preferred.visibility);
  const [language, setLanguage] = useState(
    () => preferred.language ?? (navigator.language || 'en').slice(0, 2).toLowerCase(),
  );
  // Defaults changed in Settings apply from the next post on.
  const [preferredSeen, setPreferredSeen] = useState(preferred);
  if (preferredSeen.visibility !== preferred.visibility || preferredSeen.language !== preferred.language) {
    setPreferredSeen(preferred);
    setVisibility(preferred.visibility);
    if (preferred.language) setLanguage(preferred.language);
  }
  const [schedule, setSchedule] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  // What is being written survives a reload until it is posted (edits of existing posts are not kept).
  useEffect(() => {
    if (!editing) saveDraft(server, me?.acct, { text, spoiler, visibility });
  }, [text, spoiler, visibility, editing, server, me?.acct]);
  const [busy, setBusy] = useState(false);
  const left = maxCharacters - length(text) - length(spoiler);
  // A post to edit, or a deleted post's text (delete and redraft), fills the form.
  useEffect(() => {
    if (!draft) return;
    setText(draft.text);
    setSpoiler(draft.spoilerText);
    setVisibility(draft.visibility);
    setSchedule('');
    clear();
    setPoll(null);
    document.getElementById('compose-text')?.focus();
  }, [draft]);
  const cancelEdit = () => {
    clearDraft();
    setText('');
    setSpoiler('');
  };
  const replyTo = draft?.replyTo ?? null;
  const quoting = draft?.quoting ?? null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNotice(null);
    const when = schedule ? scheduledAt(schedule) : null;
    if (when && 'problem' in when) return setError(when.problem);
    setBusy(true);
    try {
      // Descriptions and focal points go with the media before the post that shows them.
      for (const a of attachments)
        if (a.media && (a.description || a.focus))
          await request(`/api/v1/media/${a.media.id}`, {
            method: 'PUT',
            body: {
              description: a.description || undefined,
              focus: a.focus ? `${a.focus.x},${a.focus.y}` : undefined,
            },
          });
      const outcome = await post({
        status: text,
        spoilerText: spoiler,
        visibility,
        language,
        scheduledAt: when?.iso,
        mediaIds: attachments.flatMap((a) => (a.media ? [a.media.id] : [])),
        sensitive: attachments.length > 0 && sensitive,
        poll: poll ?? undefined,
      });
      if (outcome === 'scheduled') setNotice(`Scheduled for ${new Date(when!.iso).toLocaleString()}.`);
      setSchedule('');
      setText('');
      setSpoiler('');
      setVisibility(preferred.visibility);
      clear();
      setSensitive(false);
      setPoll(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className={drop.over ? 'compose dropping' : 'compose'}
      onSubmit={(e) => void submit(e)}
      aria-label="Compose"
      {...drop.handlers}
    >
      {editing && (
        <p className="muted" role="status">
          Editing a post (people who saw it can see the earlier version).{' '}
          <button type="button" onClick={cancelEdit}>
            Cancel editing
          </button>
        </p>
      )}
      {(replyTo || quoting) && (
        <p className="muted" role="status">
          {replyTo ? `Replying to @${replyTo.account.acct}` : `Quoting @${quoting!.account.acct}`}
          {quoting?.quote_approval?.current_user === 'manual' ? ' (shown once the author approves)' : ''}{' '}
          <button type="button" onClick={cancelEdit}>
            {replyTo ? 'Cancel the reply' : 'Cancel the quote'}
          </button>
        </p>
      )}
      <label>
        Content warning (optional)
        <input value={spoiler} onChange={(e) => setSpoiler(e.target.value)} />
      </label>
      <label>
        What’s on your mind?
        <AutocompleteTextarea
          id="compose-text"
          value={text}
          onValueChange={setText}
          rows={3}
          required={attachments.length === 0}
        />
      </label>
      {!editing && (
        <label>
          Add images, video or audio (or paste or drop them here)
          <input
            type="file"
            accept="image/*,video/*,audio/*"
            multiple
            disabled={attachments.length >= MAX_ATTACHMENTS}
            onChange={(e) => {
              attach(e.target.files ?? []);
              // Cleared, so the same file can be chosen again and the field does not name a file already sent.
              e.target.value = '';
            }}
          />
        </label>
      )}
      {attachments.length === 0 && !editing && (
        <button
          type="button"
          aria-pressed={poll !== null}
          onClick={() => setPoll(poll ? null : { options: ['', ''], expiresIn: 86_400 })}
        >
          {poll ? 'Remove the poll' : 'Add a poll'}
        </button>
      )}
      {poll && (
        <fieldset className="poll-editor">
          <legend>Poll</legend>
          {poll.options.map((option, i) => (
            <label key={i}>
              Choice {i + 1}
              <input
                value={option}
                maxLength={50}
                required
                onChange={(e) =>
                  setPoll({ ...poll, options: poll.options.map((o, j) => (j === i ? e.target.value : o)) })
                }
              />
            </label>
          ))}
          {poll.options.length < 4 && (
            <button type="button" onClick={() => setPoll({ ...poll, options: [...poll.options, ''] })}>
              Add a choice
            </button>
          )}
          <label>
            Open for
            <select value={poll.expiresIn} onChange={(e) => setPoll({ ...poll, expiresIn: Number(e.target.value) })}>
              <option value={3_600}>1 hour</option>
              <option value={86_400}>1 day</option>
              <option value={604_800}>7 days</option>
            </select>
          </label>
        </fieldset>
      )}
      <AttachmentList attachments={attachments} onRemove={remove} onMove={move} onUpdate={update} />
      {attachments.length > 0 && (
        <label className="inline-label">
          <input type="checkbox" checked={sensitive} onChange={(e) => setSensitive(e.target.checked)} /> Mark media as
          sensitive (hidden until asked)
        </label>
      )}
      <div className="toolbar">
        <label>
          Visibility
          <select value={visibility} onChange={(e) => setVisibility(e.target.value)} disabled={editing !== null}>
            <option value="public">Public</option>
            <option value="unlisted">Quiet public</option>
            <option value="private">Followers</option>
            <option value="direct">Mentioned people only</option>
          </select>
        </label>
        <LanguageSelect value={language} onChange={setLanguage} />
        {!editing && <ScheduleInput value={schedule} onChange={setSchedule} />}
        <span className={left < 0 ? 'counter over' : 'counter'} aria-live="polite" aria-label="Characters left">
          {left}
        </span>
        <button
          type="submit"
          className="primary"
          disabled={
            busy || left < 0 || (text.trim() === '' && attachments.length === 0) || attachments.some((a) => !a.media)
          }
        >
          {editing ? 'Save changes' : schedule ? 'Schedule' : replyTo ? 'Reply' : 'Post'}
        </button>
      </div>
      {notice && (
        <p className="muted" role="status">
          {notice}
        </p>
      )}
      <FormError message={error} />
    </form>
  );
}
