import { Bubble, type BubbleItemType, type BubbleListProps } from '@ant-design/x';
import { useEffect, useMemo, useRef } from 'react';
import { isInFlight, type Turn } from '../hooks/use-chat-session';
import type { ChatRole, Message } from '../types';
import { AnswerContent } from './AnswerContent';
import { AnswerFooter } from './AnswerFooter';

interface MessageListProps {
  /** Stored messages, oldest first. */
  messages: readonly Message[];
  /** The conversation query's dataUpdatedAt (turns sent since then are not in `messages`). */
  dataUpdatedAt: number;
  /** This session's turns of the conversation. */
  turns: readonly Turn[];
  role: ChatRole;
  agentName: string;
  onRetry: (turnId: string) => void;
}

const ROLES: BubbleListProps['role'] = {
  user: { placement: 'end', variant: 'filled', shape: 'round' },
  ai: { placement: 'start', variant: 'borderless' },
};

const who = (label: string) => <span className="sr-only">{label}</span>;

/**
 * The conversation as Ant Design X bubbles: stored messages, then the turns of this session that the
 * stored copy does not have yet (still streaming, or sent after it was fetched).
 */
export function MessageList({ messages, dataUpdatedAt, turns, role, agentName, onRetry }: MessageListProps) {
  const items = useMemo<BubbleItemType[]>(() => {
    const inFlightIds = new Set<string>();
    for (const t of turns) {
      if (!isInFlight(t)) continue;
      if (t.userMessageId) inFlightIds.add(t.userMessageId);
      if (t.assistantMessageId) inFlightIds.add(t.assistantMessageId);
    }
    const stored = messages.filter((m) => !inFlightIds.has(m.id));
    const storedIds = new Set(stored.map((m) => m.id));
    const list: BubbleItemType[] = [];

    for (const m of stored) {
      if (m.role === 'user') {
        list.push(userBubble(m.id, m.content));
      } else {
        list.push({
          key: m.id,
          role: 'ai',
          header: who(`${agentName}:`),
          content: (
            <AnswerContent text={m.content} phase="done" role={role} storedStatus={m.status} citations={m.citations} usage={m.usage} />
          ),
          footer: <AnswerFooter citations={m.citations ?? []} usage={m.usage} />,
          'data-testid': 'chat-message',
          'data-role': 'assistant',
          'data-status': m.status ?? 'complete',
        } as BubbleItemType);
      }
    }

    for (const t of turns) {
      const visible = isInFlight(t) || t.base === dataUpdatedAt;
      if (!visible) continue;
      if (!isInFlight(t) && ((t.assistantMessageId && storedIds.has(t.assistantMessageId)) || (t.userMessageId && storedIds.has(t.userMessageId)))) {
        continue;
      }
      list.push(userBubble(`${t.id}:user`, t.content));
      const emptyRefusal = t.phase === 'error' && !t.answer && t.error?.kind !== 'network';
      list.push({
        key: `${t.id}:answer`,
        role: 'ai',
        header: who(`${agentName}:`),
        variant: emptyRefusal ? 'borderless' : undefined,
        content: (
          <AnswerContent
            text={t.answer}
            phase={t.phase}
            error={t.error}
            role={role}
            citations={t.citations}
            onRetry={t.error?.kind === 'network' ? () => onRetry(t.id) : undefined}
          />
        ),
        footer: isInFlight(t) ? undefined : <AnswerFooter citations={t.citations} usage={t.usage} model={t.model} />,
        'data-testid': 'chat-message',
        'data-role': 'assistant',
        'data-status': t.phase,
      } as BubbleItemType);
    }
    return list;
  }, [messages, dataUpdatedAt, turns, role, agentName, onRetry]);

  const busy = turns.some(isInFlight);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The list's scroll box (Ant Design X renders it) can be scrolled with the keyboard (a tab stop).
    ref.current?.querySelector('.ant-bubble-list-scroll-box')?.setAttribute('tabindex', '0');
  });
  return (
    <div ref={ref} className="chat-messages" role="log" aria-label="Messages" aria-busy={busy}>
      <Bubble.List items={items} role={ROLES} className="chat-messages__list" />
    </div>
  );
}

function userBubble(key: string, content: string): BubbleItemType {
  return {
    key,
    role: 'user',
    header: who('You:'),
    content: <p className="chat-user-text">{content}</p>,
    'data-testid': 'chat-message',
    'data-role': 'user',
  } as BubbleItemType;
}
