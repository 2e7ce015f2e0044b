/**
 * The incident's chat channel over the chat REST API: the last messages (newest last) and a box
 * to write in it. Only the channel's members see it; others are told why.
 */
import { useState } from 'preact/hooks';
import { ApiError, query } from '../../api.ts';
import { Empty, ErrorNotice, Field, inputValue, Loading, Section } from '../../components/ui.tsx';
import { formatDateTime } from '../../format.ts';
import { useLive, useResource } from '../../hooks.ts';
import { api, useUser } from '../../session.ts';
import type { Channel, ChatMessage, Paged } from './types.ts';

const LAST_MESSAGES = 30;

async function loadChannel(channelId: string, signal: AbortSignal) {
  const [channel, messages] = await Promise.all([
    api.data<Channel>(`/api/v1/chat/channels/${channelId}`, signal),
    api.get<Paged<ChatMessage>>(
      `/api/v1/chat/channels/${channelId}/messages${query({ limit: LAST_MESSAGES })}`,
      signal,
    ),
  ]);
  return { channel, messages: [...messages.data].reverse() };
}

export function IncidentChannel(props: {
  channelId: string | null;
  names: Map<string, string>;
  timeZone?: string;
}) {
  return (
    <Section title="Incident channel" id="incident-channel-heading">
      <div data-testid="incident-channel">
        {props.channelId ? (
          <ChannelView channelId={props.channelId} names={props.names} timeZone={props.timeZone} />
        ) : (
          <Empty title="This incident has no chat channel">
            Incidents opened from a firing alert get their own channel with the responders when the chat
            incident flow is on. Use the timeline to keep notes on this one.
          </Empty>
        )}
      </div>
    </Section>
  );
}

function ChannelView(props: { channelId: string; names: Map<string, string>; timeZone?: string }) {
  const { data, error, loading, reload } = useResource(
    (signal) => loadChannel(props.channelId, signal),
    [props.channelId],
  );
  // A channel the user may not read (404) or chat turned off (503) stays so: asking again every few
  // seconds would only fill the logs.
  const closed = error instanceof ApiError && (error.status === 404 || error.status === 503);
  useLive(closed ? () => undefined : reload, ['incident', 'message'], 5_000);
  const user = useUser();
  if (error instanceof ApiError && error.status === 404)
    return (
      <Empty title="Only the channel's members can read it">
        The incident channel is open to its responders. Ask one of them to invite you from the chat.
      </Empty>
    );
  if (error instanceof ApiError && error.status === 503)
    return <Empty title="Chat is turned off on this cloud">Keep notes on the timeline instead.</Empty>;
  const authorName = (message: ChatMessage) => {
    if (message.kind === 'system' || !message.author_id) return 'System';
    if (message.author_id === user?.id) return 'You';
    return props.names.get(message.author_id) ?? message.author_id;
  };
  return (
    <>
      {error !== undefined && <ErrorNotice error={error} onRetry={reload} title="The channel did not load" />}
      {data === undefined && loading && <Loading label="Loading the channel…" />}
      {data && (
        <p class="muted small">
          #{data.channel.name}
          {data.channel.member_count !== undefined && ` · ${data.channel.member_count} members`}
          {data.channel.topic && ` · ${data.channel.topic}`}
        </p>
      )}
      {data && data.messages.length === 0 && (
        <Empty title="No messages yet">Write the first one below.</Empty>
      )}
      {data && data.messages.length > 0 && (
        <ol class="messages" aria-label={`The last ${LAST_MESSAGES} messages, newest last`}>
          {data.messages.map((message) => (
            <li key={message.id} class={`message ${message.kind}`} data-testid="channel-message">
              <span class="message-author">{authorName(message)}</span>{' '}
              <time class="muted small" dateTime={message.created_at}>
                {formatDateTime(message.created_at, props.timeZone)}
              </time>
              <p class="message-text">{message.content}</p>
              {message.reply_count > 0 && (
                <span class="muted small">
                  {message.reply_count} {message.reply_count === 1 ? 'reply' : 'replies'} in the chat
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      {data && <Compose channelId={props.channelId} onSent={reload} />}
    </>
  );
}

function Compose(props: { channelId: string; onSent: () => void }) {
  const [content, setContent] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const send = async (event: Event) => {
    event.preventDefault();
    if (!content.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/api/v1/chat/channels/${props.channelId}/messages`, { content: content.trim() });
      setContent('');
      props.onSent();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="compose" onSubmit={send}>
      <Field label="Message the channel">
        <textarea
          rows={2}
          value={content}
          data-testid="channel-message-input"
          onInput={(event) => setContent(inputValue(event))}
        />
      </Field>
      {error !== undefined && <ErrorNotice error={error} title="The message was not sent" />}
      <button type="submit" class="btn primary" disabled={busy || !content.trim()} data-testid="send-message">
        {busy ? 'Sending…' : 'Send'}
      </button>
    </form>
  );
}
