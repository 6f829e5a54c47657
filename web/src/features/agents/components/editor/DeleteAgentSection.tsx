import { Button, Input, Modal } from 'antd';
import { useState } from 'react';
import { toast } from '@/components/toast';
import { ApiError } from '@/lib/api-client';
import { toastMessage, useDeleteAgent } from '../../api/agents';
import { EDITOR_TEXTS } from './editor-texts';

interface DeleteAgentSectionProps {
  agentId: string;
  agentName: string;
  /** Called once the agent is gone (deleted now, or already gone: 404). */
  onDeleted?: () => void;
}

/**
 * Settings → Delete agent (issue 29): a danger zone whose button opens a confirmation in which the owner types
 * the agent's name; `DELETE /api/agents/{id}` → 204.
 */
export function DeleteAgentSection({ agentId, agentName, onDeleted }: DeleteAgentSectionProps) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useDeleteAgent();
  const headingId = `agent-delete-heading-${agentId}`;
  const inputId = `agent-delete-confirm-${agentId}`;
  const matches = typed.trim() === agentName.trim();

  const close = () => {
    if (remove.isPending) return;
    setOpen(false);
    setTyped('');
  };

  const confirm = () => {
    if (!matches || remove.isPending) return;
    remove.mutate(agentId, {
      onSuccess: () => {
        toast({ title: EDITOR_TEXTS.deletedTitle, description: EDITOR_TEXTS.deletedBody(agentName) });
        setOpen(false);
        onDeleted?.();
      },
      onError: (error) => {
        console.error('Error deleting agent:', error);
        toast({
          title: 'Error',
          description: toastMessage(error, EDITOR_TEXTS.deleteFailed),
          variant: 'destructive',
          error,
        });
        // Already gone (or not the caller's): nothing is left to edit.
        if (error instanceof ApiError && error.status === 404) {
          setOpen(false);
          onDeleted?.();
        }
      },
    });
  };

  return (
    <section className="agent-danger-zone" aria-labelledby={headingId}>
      <h3 id={headingId} className="agent-danger-zone__heading">
        {EDITOR_TEXTS.deleteHeading}
      </h3>
      <p className="agent-danger-zone__text">{EDITOR_TEXTS.deleteBody}</p>
      <div>
        <Button danger onClick={() => setOpen(true)}>
          {EDITOR_TEXTS.deleteButton}
        </Button>
      </div>
      <Modal
        open={open}
        title={EDITOR_TEXTS.deleteConfirmTitle(agentName)}
        onCancel={close}
        destroyOnHidden
        width={480}
        zIndex={1100}
        footer={
          <div className="agent-discard-dialog__actions">
            <Button onClick={close} disabled={remove.isPending}>
              {EDITOR_TEXTS.cancel}
            </Button>
            <Button danger type="primary" onClick={confirm} disabled={!matches || remove.isPending}>
              {remove.isPending ? EDITOR_TEXTS.deleting : EDITOR_TEXTS.deleteButton}
            </Button>
          </div>
        }
      >
        <form
          className="agent-delete-form"
          onSubmit={(e) => {
            e.preventDefault();
            confirm();
          }}
        >
          <p>{EDITOR_TEXTS.deleteBody}</p>
          <label htmlFor={inputId} className="form-field__label">
            {EDITOR_TEXTS.deleteConfirmLabel(agentName)}
          </label>
          <Input id={inputId} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" autoFocus />
        </form>
      </Modal>
    </section>
  );
}
