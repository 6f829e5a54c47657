import { CopyOutlined, DeleteOutlined, KeyOutlined } from '@ant-design/icons';
import { Alert, Button, Input, InputNumber, Popconfirm, Table, Tabs, Tag, type TableColumnsType } from 'antd';
import { useState, type FormEvent } from 'react';
import { toast } from '@/components/toast';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '../api/api-keys';
import {
  aiSdkExample,
  apiBaseUrl,
  curlExample,
  modelName,
  pythonExample,
  responsesCurlExample,
  responsesExample,
} from '../lib/examples';
import { formatDate, formatUsd, isExpired, tomorrow, validateKeyForm, type KeyFormErrors } from '../lib/format';
import type { ApiKey, CreatedApiKey } from '../types';
import '../agent-api.css';

export interface ApiKeysPanelProps {
  agentId: string;
  agentName: string;
  /** The key list loads only while the editor is open. */
  enabled?: boolean;
}

/** Writes text to the clipboard; false when the browser refuses (the text stays selectable on screen). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      icon={<CopyOutlined aria-hidden="true" />}
      aria-label={label}
      data-testid={testId}
      onClick={async () => {
        if (await copyText(text)) {
          setCopied(true);
          window.setTimeout(() => setCopied(false), 2000);
        } else {
          toast({ title: 'Copy failed', description: 'Select the text and copy it by hand.', variant: 'destructive' });
        }
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}

function CodeBlock({ code, label, testId }: { code: string; label: string; testId: string }) {
  return (
    <div className="agent-api__code">
      <pre data-testid={testId} aria-label={label} tabIndex={0}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label={`Copy the ${label}`} />
    </div>
  );
}

/**
 * The editor's API tab: create a key (name, optional expiry date, optional monthly limit), see it once with a
 * copy button, list the live keys (prefix, created, last used, this month's spend), revoke one, and paste-ready
 * examples for this agent: Chat Completions (curl, Python), the Responses API (JavaScript, curl) and the Vercel AI SDK.
 */
/** The examples' tabs, in order: each snippet with its tab name and accessible label. */
const EXAMPLES: {
  key: string;
  tab: string;
  label: string;
  code: (baseUrl: string, model: string, key?: string) => string;
}[] = [
  { key: 'curl', tab: 'curl', label: 'curl example', code: curlExample },
  { key: 'python', tab: 'Python', label: 'Python example', code: pythonExample },
  { key: 'responses', tab: 'Responses API', label: 'Responses API example (JavaScript)', code: responsesExample },
  { key: 'responses-curl', tab: 'Responses API (curl)', label: 'Responses API example (curl)', code: responsesCurlExample },
  { key: 'ai-sdk', tab: 'Vercel AI SDK', label: 'Vercel AI SDK example', code: aiSdkExample },
];

export default function ApiKeysPanel({ agentId, agentName, enabled = true }: ApiKeysPanelProps) {
  const keys = useApiKeys(agentId, enabled);
  const create = useCreateApiKey(agentId);
  const revoke = useRevokeApiKey(agentId);
  const [name, setName] = useState('');
  const [expiresOn, setExpiresOn] = useState('');
  const [monthlyLimit, setMonthlyLimit] = useState<number | null>(null);
  const [errors, setErrors] = useState<KeyFormErrors>({});
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const model = modelName(agentId);
  const baseUrl = apiBaseUrl();
  const ids = {
    name: `api-key-name-${agentId}`,
    expires: `api-key-expires-${agentId}`,
    limit: `api-key-limit-${agentId}`,
  };

  const onCreate = (event: FormEvent) => {
    event.preventDefault();
    const values = { name, expiresOn, monthlyLimit };
    const found = validateKeyForm(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    create.mutate(
      {
        name: name.trim(),
        ...(expiresOn ? { expiresAt: expiresOn } : {}),
        ...(monthlyLimit !== null ? { monthlyLimit } : {}),
      },
      {
        onSuccess: (key) => {
          setCreated(key);
          setName('');
          setExpiresOn('');
          setMonthlyLimit(null);
        },
        onError: (error) => {
          toast({ title: 'Error', description: error.message, variant: 'destructive', error });
        },
      },
    );
  };

  const columns: TableColumnsType<ApiKey> = [
    { title: 'Name', dataIndex: 'name', key: 'name', render: (n: string) => <span className="agent-api__key-name">{n}</span> },
    {
      title: 'Key',
      dataIndex: 'prefix',
      key: 'prefix',
      render: (prefix: string) => <code className="agent-api__prefix">{prefix}…</code>,
    },
    { title: 'Created', dataIndex: 'createdAt', key: 'createdAt', render: (d: string) => formatDate(d) },
    { title: 'Last used', dataIndex: 'lastUsedAt', key: 'lastUsedAt', render: (d: string | null) => formatDate(d, 'Never') },
    {
      title: 'This month',
      key: 'monthSpend',
      render: (_, k) => (
        <span>
          {formatUsd(k.monthSpend)}
          {k.monthlyLimit !== null && <span className="agent-api__muted"> of {formatUsd(k.monthlyLimit)}</span>}
        </span>
      ),
    },
    {
      title: 'Expires',
      dataIndex: 'expiresAt',
      key: 'expiresAt',
      render: (d: string | null) => (isExpired(d) ? <Tag color="red">Expired</Tag> : formatDate(d, 'Never')),
    },
    {
      title: <span className="sr-only">Actions</span>,
      key: 'actions',
      align: 'right',
      render: (_, k) => (
        <Popconfirm
          title={`Revoke "${k.name}"?`}
          description="Apps using this key stop working at once. This cannot be undone."
          okText="Revoke"
          okButtonProps={{ danger: true }}
          cancelText="Cancel"
          onConfirm={() =>
            revoke.mutateAsync(k).then(
              () => {
                toast({ title: 'API Key Revoked', description: `${k.name} no longer works.` });
                setCreated((c) => (c?.id === k.id ? null : c));
              },
              (error: Error) => toast({ title: 'Error', description: error.message, variant: 'destructive', error }),
            )
          }
        >
          <Button
            type="text"
            danger
            icon={<DeleteOutlined aria-hidden="true" />}
            aria-label={`Revoke ${k.name}`}
            title="Revoke"
            disabled={revoke.isPending && revoke.variables?.id === k.id}
          />
        </Popconfirm>
      ),
    },
  ];

  const list = keys.data ?? [];
  // A key on screen right now goes into the examples; afterwards they read it from the environment.
  const exampleKey = created?.key;

  return (
    <div className="agent-editor__section agent-api" data-testid="api-keys-panel">
      <h3 className="agent-api__title">API access</h3>
      <p className="agent-api__intro">
        Call {agentName} from your own site, bot or script with any OpenAI-compatible client. Answers are
        metered like chat and charged to your wallet. Base URL <code data-testid="api-base-url">{baseUrl}</code>, model{' '}
        <code data-testid="api-model">{model}</code>.
      </p>

      <form className="agent-api__form" onSubmit={onCreate} noValidate aria-label="Create an API key">
        <div className="form-field">
          <label htmlFor={ids.name} className="form-field__label">
            Key name
          </label>
          <Input
            id={ids.name}
            value={name}
            maxLength={100}
            placeholder="e.g. Website chatbot"
            status={errors.name ? 'error' : undefined}
            aria-invalid={!!errors.name}
            aria-describedby={errors.name ? `${ids.name}-error` : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          {errors.name && (
            <p id={`${ids.name}-error`} className="form-field__error" role="alert">
              {errors.name}
            </p>
          )}
        </div>
        <div className="form-field">
          <label htmlFor={ids.expires} className="form-field__label">
            Expires on (optional)
          </label>
          <Input
            id={ids.expires}
            type="date"
            min={tomorrow()}
            value={expiresOn}
            status={errors.expiresOn ? 'error' : undefined}
            aria-invalid={!!errors.expiresOn}
            aria-describedby={errors.expiresOn ? `${ids.expires}-error` : undefined}
            onChange={(e) => setExpiresOn(e.target.value)}
          />
          {errors.expiresOn && (
            <p id={`${ids.expires}-error`} className="form-field__error" role="alert">
              {errors.expiresOn}
            </p>
          )}
        </div>
        <div className="form-field">
          <label htmlFor={ids.limit} className="form-field__label">
            Monthly limit in $ (optional)
          </label>
          <InputNumber<number>
            id={ids.limit}
            className="agent-api__limit"
            min={0}
            step={1}
            placeholder="No limit"
            value={monthlyLimit}
            status={errors.monthlyLimit ? 'error' : undefined}
            aria-invalid={!!errors.monthlyLimit}
            aria-describedby={errors.monthlyLimit ? `${ids.limit}-error` : undefined}
            onChange={(v) => setMonthlyLimit(typeof v === 'number' ? v : null)}
          />
          {errors.monthlyLimit && (
            <p id={`${ids.limit}-error`} className="form-field__error" role="alert">
              {errors.monthlyLimit}
            </p>
          )}
        </div>
        <Button type="primary" htmlType="submit" icon={<KeyOutlined aria-hidden="true" />} disabled={create.isPending}>
          {create.isPending ? 'Creating...' : 'Create API key'}
        </Button>
      </form>

      {created && (
        <Alert
          className="agent-api__created"
          type="warning"
          showIcon
          data-testid="api-key-created"
          title={`Your new API key "${created.name}"`}
          description={
            <div>
              <p>Copy it now and keep it secret: it is shown only once and cannot be retrieved later.</p>
              <div className="agent-api__secret">
                <code data-testid="api-key-secret">{created.key}</code>
                <CopyButton text={created.key} label="Copy the API key" testId="api-key-copy" />
              </div>
              <Button type="link" onClick={() => setCreated(null)}>
                I have copied it
              </Button>
            </div>
          }
        />
      )}

      {keys.error ? (
        <p role="alert" className="agents-error">
          {keys.error.message}
        </p>
      ) : (
        <Table<ApiKey>
          className="agent-api__table"
          rowKey="id"
          columns={columns}
          dataSource={list}
          loading={keys.isPending && enabled}
          pagination={false}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: 'No API keys yet' }}
        />
      )}

      <section className="agent-api__examples" aria-label="Examples">
        <h4>Examples</h4>
        <Tabs
          size="small"
          items={EXAMPLES.map((ex) => ({
            key: ex.key,
            label: ex.tab,
            children: <CodeBlock code={ex.code(baseUrl, model, exampleKey)} label={ex.label} testId={`api-example-${ex.key}`} />,
          }))}
        />
        <p className="agent-api__muted">
          Add <code>&quot;stream&quot;: true</code> for a streamed answer. Each answer&apos;s <code>usage.cost</code> is what it
          was charged, in dollars. Python needs <code>pip install openai</code>; the JavaScript examples (ES modules)
          need <code>npm install openai</code> or, for the Vercel AI SDK, <code>npm install ai @ai-sdk/openai</code>.
        </p>
      </section>
    </div>
  );
}
