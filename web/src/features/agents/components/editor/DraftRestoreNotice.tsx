import { Alert, Button } from 'antd';
import { EDITOR_TEXTS } from './editor-texts';

interface DraftRestoreNoticeProps {
  /** When the draft was kept (ISO time; empty when unknown). */
  savedAt: string;
  onRestore: () => void;
  onDismiss: () => void;
}

function whenOf(savedAt: string): string {
  const date = savedAt ? new Date(savedAt) : null;
  if (!date || Number.isNaN(date.getTime())) return '';
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "Restore your unsaved draft?" (Restore / Dismiss): the instructions kept on this device, offered back. */
export function DraftRestoreNotice({ savedAt, onRestore, onDismiss }: DraftRestoreNoticeProps) {
  return (
    <Alert
      type="warning"
      showIcon
      className="agent-draft-notice"
      role="region"
      aria-label={EDITOR_TEXTS.restoreTitle}
      title={EDITOR_TEXTS.restoreTitle}
      description={EDITOR_TEXTS.restoreBody(whenOf(savedAt))}
      action={
        <div className="agent-draft-notice__actions">
          <Button size="small" type="primary" onClick={onRestore}>
            {EDITOR_TEXTS.restore}
          </Button>
          <Button size="small" onClick={onDismiss}>
            {EDITOR_TEXTS.dismiss}
          </Button>
        </div>
      }
    />
  );
}
