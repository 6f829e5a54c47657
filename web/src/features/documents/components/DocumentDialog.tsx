import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input, Modal } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { FormField, fieldA11y } from '@/components/FormField';
import { toast } from '@/components/toast';
import { errorDescription, useAddDocument, useDocumentPreview, useUpdateDocument } from '../api/documents';
import { documentNameError, documentUrlError, MAX_NAME_LENGTH, nameFromTitle, parseDocumentUrl } from '../lib/document-url';
import { addLabel } from '../lib/labels';
import type { AgentDocument } from '../types';
import { LabelsInput } from './LabelsInput';

const check = (rule: (value: string) => string | null) =>
  z.string().superRefine((value, ctx) => {
    const message = rule(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  });

const addSchema = z.object({ name: check(documentNameError), url: check(documentUrlError) });
const editSchema = z.object({ name: check(documentNameError), url: z.string() });
type DocumentFormValues = z.infer<typeof addSchema>;

type DialogProps =
  | { mode: 'add'; open: boolean; agentId: string; agentEmail?: string; onClose: () => void }
  | { mode: 'edit'; open: boolean; agentId: string; agentEmail?: string; document: AgentDocument | null; onClose: () => void };

export const ADD_DOCUMENT_TITLE = 'Add Google Docs Document';
export const EDIT_DOCUMENT_TITLE = 'Edit Document';

/** 'Add Google Docs Document' and 'Edit Document' (spec §2 dialogs, §5 "Add document" / "Edit document"). */
export function DocumentDialog(props: DialogProps) {
  const title = props.mode === 'add' ? ADD_DOCUMENT_TITLE : EDIT_DOCUMENT_TITLE;
  const show = props.open && (props.mode === 'add' || props.document !== null);
  return (
    <Modal open={show} onCancel={props.onClose} title={title} footer={null} destroyOnHidden width={560}>
      {show && (
        <DocumentForm
          agentId={props.agentId}
          agentEmail={props.agentEmail}
          document={props.mode === 'edit' ? props.document : null}
          title={title}
          onDone={props.onClose}
        />
      )}
    </Modal>
  );
}

interface DocumentFormProps {
  agentId: string;
  agentEmail?: string;
  /** null: add a document; otherwise edit this one. */
  document: AgentDocument | null;
  title: string;
  onDone: () => void;
}

function DocumentForm({ agentId, agentEmail, document, title, onDone }: DocumentFormProps) {
  const editing = document !== null;
  const add = useAddDocument(agentId);
  const update = useUpdateDocument(agentId);
  const [labels, setLabels] = useState<string[]>(() => [...(document?.labels ?? [])]);
  const [labelDraft, setLabelDraft] = useState('');
  const [labelError, setLabelError] = useState<string | null>(null);
  const {
    control,
    handleSubmit,
    setError,
    setValue,
    getValues,
    formState: { errors },
  } = useForm<DocumentFormValues>({
    resolver: zodResolver(editing ? editSchema : addSchema),
    defaultValues: { name: document?.name ?? '', url: document?.url ?? '' },
  });

  // Adding: once a valid link is entered, the Name is pre-filled from the Google Docs title (when
  // the agent can already open the document), unless the creator typed a name of their own.
  const urlValue = useWatch({ control, name: 'url' });
  const parsedUrl = editing ? null : parseDocumentUrl(urlValue ?? '');
  const preview = useDocumentPreview(agentId, parsedUrl?.ok ? parsedUrl.url : null);
  const prefilled = useRef('');
  const previewTitle = preview.data?.title ?? null;
  useEffect(() => {
    if (editing || !previewTitle) return;
    const name = nameFromTitle(previewTitle);
    const current = getValues('name');
    if (!name || (current !== '' && current !== prefilled.current)) return;
    prefilled.current = name;
    setValue('name', name, { shouldValidate: true });
  }, [editing, previewTitle, getValues, setValue]);
  const pending = add.isPending || update.isPending;
  const idPrefix = editing ? 'edit-document' : 'add-document';

  const onSubmit = handleSubmit(async (values) => {
    // A label typed but not added yet is added now, with the same rules as the Add button.
    const pendingLabel = addLabel(labels, labelDraft);
    if (pendingLabel.error) {
      setLabelError(pendingLabel.error);
      return;
    }
    const finalLabels = [...pendingLabel.labels];
    setLabels(finalLabels);
    setLabelDraft('');

    if (document) {
      try {
        await update.mutateAsync({ ...document, name: values.name, labels: finalLabels });
        toast({ title: 'Document updated', description: 'The document was successfully updated.' });
        onDone();
      } catch (error) {
        console.error('Error updating document:', error);
        toast({
          title: 'Error updating document',
          description: errorDescription(error, 'Failed to update document'),
          variant: 'destructive',
          error,
        });
      }
      return;
    }

    const parsed = parseDocumentUrl(values.url);
    if (!parsed.ok) {
      setError('url', { type: 'submit', message: parsed.message }, { shouldFocus: true });
      return;
    }
    try {
      await add.mutateAsync({
        name: values.name,
        url: parsed.url,
        driveFileId: parsed.driveFileId,
        labels: finalLabels,
        sharingStatus: 'shared',
      });
      toast({ title: 'Document added', description: 'The document was successfully added to the agent.' });
      onDone();
    } catch (error) {
      console.error('Error adding document:', error);
      toast({
        title: 'Error adding document',
        description: errorDescription(error, 'Failed to add document. Please try again.'),
        variant: 'destructive',
        error,
      });
    }
  });

  return (
    <form className="document-form" onSubmit={onSubmit} noValidate aria-label={title}>
      <Controller
        control={control}
        name="name"
        render={({ field }) => (
          <FormField id={`${idPrefix}-name`} label="Document Name" error={errors.name?.message}>
            <Input
              {...field}
              {...fieldA11y(`${idPrefix}-name`, errors.name?.message)}
              maxLength={MAX_NAME_LENGTH}
              placeholder="e.g. Syllabus"
              autoComplete="off"
              disabled={pending}
            />
          </FormField>
        )}
      />
      <p className="documents-muted documents-hint">
        No spaces: the name is how the instructions refer to the document (@Name).
      </p>
      <Controller
        control={control}
        name="url"
        render={({ field }) => (
          <FormField id={`${idPrefix}-url`} label="Document URL" error={errors.url?.message}>
            <Input
              {...field}
              {...fieldA11y(`${idPrefix}-url`, errors.url?.message)}
              type="url"
              readOnly={editing}
              placeholder="https://docs.google.com/document/d/.../edit"
              autoComplete="off"
              disabled={pending && !editing}
            />
          </FormField>
        )}
      />
      {editing ? (
        <p className="documents-muted documents-hint">The URL of a linked document cannot be changed.</p>
      ) : (
        <p className="documents-muted documents-hint" role="note">
          Only Google Docs documents are supported.
          {agentEmail ? ` Share the document with ${agentEmail} first.` : ''}
        </p>
      )}
      <LabelsInput
        id={`${idPrefix}-labels`}
        labels={labels}
        onChange={setLabels}
        draft={labelDraft}
        onDraftChange={setLabelDraft}
        error={labelError}
        onError={setLabelError}
        disabled={pending}
      />
      <div className="document-form__actions">
        <Button onClick={onDone} disabled={pending}>
          Cancel
        </Button>
        <Button type="primary" htmlType="submit" disabled={pending}>
          {editing ? (pending ? 'Saving...' : 'Save Changes') : pending ? 'Adding...' : 'Add Document'}
        </Button>
      </div>
    </form>
  );
}
