/** The compose side of the social client: drafts (reply, quote, edit, redraft), posting, media uploads and poll votes. */
import type { StateCreator } from 'zustand';
import { MastodonError, type SocialClientState } from './social-client-state.ts';
import type { SocialMedia, SocialPoll, SocialStatus } from './social-types.ts';

type Setter = Parameters<StateCreator<SocialClientState>>[0];
type Getter = Parameters<StateCreator<SocialClientState>>[1];

/** The narrower of two visibilities (a reply is never more public than the post it answers, as Mastodon does). */
function narrower(a: string, b: string): string {
  const order = ['public', 'unlisted', 'private', 'direct'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))] ?? 'public';
}

export function composeActions(
  set: Setter,
  get: Getter,
): Pick<
  SocialClientState,
  'draft' | 'startEdit' | 'deleteStatus' | 'clearDraft' | 'startReply' | 'startQuote' | 'post' | 'upload' | 'vote'
> {
  return {
    draft: null,

    async startEdit(status) {
      const source = await get().request<{ id: string; text: string; spoiler_text: string }>(
        `/api/v1/statuses/${status.id}/source`,
      );
      set({
        draft: {
          editing: status.id,
          text: source.text,
          spoilerText: source.spoiler_text,
          visibility: status.visibility,
        },
      });
    },

    async deleteStatus(status, redraft) {
      const deleted = await get().request<SocialStatus & { text?: string }>(`/api/v1/statuses/${status.id}`, {
        method: 'DELETE',
      });
      const gone = (list: SocialStatus[]) => list.filter((s) => s.id !== status.id && s.reblog?.id !== status.id);
      set({
        home: gone(get().home),
        incoming: gone(get().incoming),
        overrides: { ...get().overrides, [status.id]: { deleted: true } },
      });
      if (redraft)
        set({
          draft: {
            editing: null,
            text: deleted.text ?? '',
            spoilerText: deleted.spoiler_text ?? '',
            visibility: deleted.visibility ?? 'public',
          },
        });
    },

    clearDraft() {
      set({ draft: null });
    },

    startReply(status) {
      const target = status.reblog ?? status;
      const me = get().me;
      // The author first, then everyone they mentioned, never oneself (as Mastodon's web client).
      const handles = [target.account.acct, ...(target.mentions ?? []).map((m) => m.acct)].filter(
        (acct, i, all) => acct !== me?.acct && all.indexOf(acct) === i,
      );
      set({
        draft: {
          editing: null,
          text: handles.map((h) => `@${h} `).join(''),
          spoilerText: target.spoiler_text,
          visibility: narrower(target.visibility, 'public'),
          replyTo: target,
        },
      });
    },

    startQuote(status) {
      const target = status.reblog ?? status;
      set({ draft: { editing: null, text: '', spoilerText: '', visibility: 'public', quoting: target } });
    },

    async post(input) {
      const draft = get().draft;
      if (draft?.editing) {
        const edited = await get().request<SocialStatus>(`/api/v1/statuses/${draft.editing}`, {
          method: 'PUT',
          body: { status: input.status, spoiler_text: input.spoilerText ?? '', language: input.language },
        });
        const replace = (list: SocialStatus[]) =>
          list.map((s) =>
            s.id === edited.id
              ? { ...s, ...edited }
              : s.reblog?.id === edited.id
                ? { ...s, reblog: { ...s.reblog, ...edited } }
                : s,
          );
        const { content, spoiler_text, edited_at } = edited;
        set({
          home: replace(get().home),
          overrides: {
            ...get().overrides,
            [edited.id]: { ...get().overrides[edited.id], content, spoiler_text, edited_at },
          },
          draft: null,
        });
        return 'edited';
      }
      const answer = await get().request<SocialStatus & { scheduled_at?: string; params?: unknown }>(
        '/api/v1/statuses',
        {
          method: 'POST',
          body: {
            status: input.status,
            spoiler_text: input.spoilerText || undefined,
            visibility: input.visibility ?? 'public',
            language: input.language || undefined,
            scheduled_at: input.scheduledAt || undefined,
            in_reply_to_id: draft?.replyTo?.id,
            quoted_status_id: draft?.quoting?.id,
            media_ids: input.mediaIds?.length ? input.mediaIds : undefined,
            sensitive: input.sensitive || undefined,
            poll: input.poll ? { options: input.poll.options, expires_in: input.poll.expiresIn } : undefined,
          },
        },
      );
      set({ draft: null });
      // A scheduled post answers with the ScheduledStatus: nothing to show until it is published.
      if (answer.params !== undefined) return 'scheduled';
      const status = answer as SocialStatus;
      // One's own post goes straight to the top; the stream's copy of it is then skipped.
      set({
        home: [status, ...get().home.filter((s) => s.id !== status.id)],
        incoming: get().incoming.filter((s) => s.id !== status.id),
      });
      if (draft?.replyTo)
        set({
          overrides: {
            ...get().overrides,
            [draft.replyTo.id]: {
              ...get().overrides[draft.replyTo.id],
              replies_count: draft.replyTo.replies_count + 1,
            },
          },
        });
      return 'posted';
    },

    upload(file, onProgress) {
      const { server, token } = get();
      return new Promise<SocialMedia>((resolve, reject) => {
        // XMLHttpRequest, not fetch: only it reports upload progress.
        const xhr = new XMLHttpRequest();
        xhr.open('POST', `${server}/api/v2/media`);
        if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
        xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
        xhr.onerror = () => reject(new MastodonError(0, 'The upload failed'));
        xhr.onload = async () => {
          let media: SocialMedia & { error?: string };
          try {
            media = JSON.parse(xhr.responseText) as SocialMedia & { error?: string };
          } catch {
            reject(new MastodonError(xhr.status, `The upload was answered ${xhr.status}`));
            return;
          }
          if (xhr.status >= 400) {
            reject(new MastodonError(xhr.status, media.error ?? `The upload was answered ${xhr.status}`));
            return;
          }
          // 202: still being processed; ask until it is.
          for (let i = 0; media.url === null && i < 120; i++) {
            await new Promise((r) => setTimeout(r, 500));
            media = await get().request<SocialMedia>(`/api/v1/media/${media.id}`);
          }
          onProgress(1);
          resolve(media);
        };
        const form = new FormData();
        form.append('file', file);
        xhr.send(form);
      });
    },

    async vote(poll, choices) {
      const updated = await get().request<SocialPoll>(`/api/v1/polls/${poll.id}/votes`, {
        method: 'POST',
        body: { choices },
      });
      const patch = (list: SocialStatus[]) =>
        list.map((s) =>
          s.poll?.id === poll.id
            ? { ...s, poll: updated }
            : s.reblog?.poll?.id === poll.id
              ? { ...s, reblog: { ...s.reblog, poll: updated } }
              : s,
        );
      set({ home: patch(get().home) });
      return updated;
    },
  };
}
