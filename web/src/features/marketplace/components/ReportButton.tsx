import { FlagOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Input, Modal } from 'antd';
import { useId, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { fieldA11y, FormField } from '@/components/FormField';
import { toast } from '@/components/toast';
import { fieldError } from '@/features/agents';
import { useReport, type ReportTarget } from '../api/marketplace';
import { MAX_REPORT_LENGTH, reportSchema, type ReportValues } from '../lib/review-schema';

export const REPORT_TEXTS = {
  button: 'Report',
  reason: 'Reason',
  send: 'Send report',
  sending: 'Sending...',
  cancel: 'Cancel',
  receivedTitle: 'Report received',
  receivedText: 'Thank you. We will look into it.',
  failed: 'Failed to send the report.',
} as const;

interface ReportButtonProps {
  target: ReportTarget;
  /** The button's accessible name, starting with its visible 'Report' (e.g. 'Report this agent'). */
  label: string;
  /** The dialog's title. */
  title: string;
}

/** "Report": a dialog asking for the reason, then POST …/report {reason} (signed-in users only). */
export function ReportButton({ target, label, title }: ReportButtonProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button type="link" size="small" className="mp-report" icon={<FlagOutlined aria-hidden="true" />} aria-label={label} onClick={() => setOpen(true)}>
        {REPORT_TEXTS.button}
      </Button>
      <Modal open={open} onCancel={() => setOpen(false)} title={title} footer={null} destroyOnHidden width={480}>
        {open && <ReportForm target={target} title={title} onDone={() => setOpen(false)} />}
      </Modal>
    </>
  );
}

function ReportForm({ target, title, onDone }: { target: ReportTarget; title: string; onDone: () => void }) {
  const id = useId();
  const report = useReport(target);
  const {
    control,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<ReportValues>({ resolver: zodResolver(reportSchema), defaultValues: { reason: '' } });

  const onSubmit = handleSubmit((values) => {
    report.mutate(values.reason.trim(), {
      onSuccess: () => {
        toast({ title: REPORT_TEXTS.receivedTitle, description: REPORT_TEXTS.receivedText });
        onDone();
      },
      onError: (error) => {
        const message = fieldError(error, 'reason');
        if (message) setError('reason', { type: 'server', message }, { shouldFocus: true });
      },
    });
  });

  const serverError = report.isError && !fieldError(report.error, 'reason') ? report.error.message || REPORT_TEXTS.failed : '';

  return (
    <form onSubmit={onSubmit} noValidate aria-label={title} className="mp-form">
      <Controller
        control={control}
        name="reason"
        render={({ field }) => (
          <FormField id={`${id}-reason`} label={REPORT_TEXTS.reason} error={errors.reason?.message}>
            <Input.TextArea
              {...field}
              {...fieldA11y(`${id}-reason`, errors.reason?.message)}
              rows={4}
              maxLength={MAX_REPORT_LENGTH}
              showCount
              placeholder="What is wrong with it?"
            />
          </FormField>
        )}
      />
      {serverError && <Alert type="error" showIcon role="alert" title={serverError} />}
      <div className="mp-form__actions">
        <Button onClick={onDone} disabled={report.isPending}>
          {REPORT_TEXTS.cancel}
        </Button>
        <Button type="primary" htmlType="submit" disabled={report.isPending}>
          {report.isPending ? REPORT_TEXTS.sending : REPORT_TEXTS.send}
        </Button>
      </div>
    </form>
  );
}
