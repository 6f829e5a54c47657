import { Alert, Button, Input } from 'antd';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import { toast } from '@/components/toast';
import { fieldError } from '@/features/agents';
import { useSaveReply } from '../api/marketplace';

/** The catalog's limit and messages for a reply (docs/catalog.md, "Replies"). */
export const MAX_REPLY_LENGTH = 2000;

export const REPLY_TEXTS = {
  reply: 'Reply',
  edit: 'Edit reply',
  remove: 'Remove reply',
  removing: 'Removing...',
  label: 'Your reply',
  save: 'Save reply',
  saving: 'Saving...',
  cancel: 'Cancel',
  empty: 'Write a reply first.',
  tooLong: 'A reply can be at most 2,000 characters.',
  savedTitle: 'Reply saved',
  savedText: 'Your reply is shown under the review.',
  removedTitle: 'Reply removed',
  removedText: 'Your reply to the review was removed.',
  saveFailed: 'Failed to save your reply.',
  removeFailed: 'Failed to remove your reply.',
  replyTo: (author: string) => `Reply to the review by ${author}`,
  editFor: (author: string) => `Edit reply to the review by ${author}`,
  removeFor: (author: string) => `Remove reply to the review by ${author}`,
  formFor: (author: string) => `Your reply to ${author}`,
} as const;

/** The client's check of a reply (the server's rules): trimmed, 1–2,000 characters. */
export function replyProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return REPLY_TEXTS.empty;
  if ([...trimmed].length > MAX_REPLY_LENGTH) return REPLY_TEXTS.tooLong;
  return undefined;
}

interface ReplyFormProps {
  agentId: string;
  slug: string;
  reviewId: string;
  author: string;
  initialText?: string;
  onDone: () => void;
}

/** The agent owner's reply to one review: "Your reply" (≤ 2,000), Save reply (PUT …/reply) / Cancel. */
export function ReplyForm({ agentId, slug, reviewId, author, initialText = '', onDone }: ReplyFormProps) {
  const id = useId();
  const save = useSaveReply(agentId, slug);
  const [text, setText] = useState(initialText);
  const [problem, setProblem] = useState<string | undefined>();
  const input = useRef<TextAreaRef>(null);
  // Opening the form moves the focus to the reply.
  useEffect(() => input.current?.focus(), []);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const local = replyProblem(text);
    setProblem(local);
    if (local) return;
    save.mutate(
      { reviewId, text: text.trim() },
      {
        onSuccess: () => {
          toast({ title: REPLY_TEXTS.savedTitle, description: REPLY_TEXTS.savedText });
          onDone();
        },
        onError: (error) => {
          const field = fieldError(error, 'text');
          if (field) setProblem(field);
        },
      },
    );
  };

  const serverError = save.isError && !fieldError(save.error, 'text') ? save.error.message || REPLY_TEXTS.saveFailed : '';
  const errorId = `${id}-error`;

  return (
    <form className="mp-form mp-reply-form" onSubmit={onSubmit} noValidate aria-label={REPLY_TEXTS.formFor(author)}>
      <div className="form-field">
        <label htmlFor={`${id}-text`} className="form-field__label">
          {REPLY_TEXTS.label}
        </label>
        <Input.TextArea
          id={`${id}-text`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={3}
          maxLength={MAX_REPLY_LENGTH}
          showCount
          ref={input}
          status={problem ? 'error' : undefined}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? errorId : undefined}
        />
        {problem && (
          <p id={errorId} className="form-field__error">
            {problem}
          </p>
        )}
      </div>
      {serverError && <Alert type="error" showIcon title={serverError} />}
      <div className="mp-form__actions mp-form__actions--start">
        <Button type="primary" htmlType="submit" disabled={save.isPending}>
          {save.isPending ? REPLY_TEXTS.saving : REPLY_TEXTS.save}
        </Button>
        <Button onClick={onDone} disabled={save.isPending}>
          {REPLY_TEXTS.cancel}
        </Button>
      </div>
    </form>
  );
}
