import { StopOutlined } from '@ant-design/icons';
import { Sender } from '@ant-design/x';
import { Input } from 'antd';
import type { ComponentProps } from 'react';

export const CONTENT_MAX = 8000;

type TextAreaProps = ComponentProps<typeof Input.TextArea>;

/** The Sender's input: an antd TextArea with the accessible name "Message" and the 8,000-character limit. */
function MessageInput(props: TextAreaProps) {
  // React 19 passes `ref` as a prop: the Sender's focus/insert handle reaches the TextArea.
  return <Input.TextArea {...props} aria-label="Message" maxLength={CONTENT_MAX} />;
}

const COMPONENTS = { input: MessageInput };

interface ChatSenderProps {
  value: string;
  onChange: (value: string) => void;
  onSubmit: (value: string) => void;
  onStop: () => void;
  /** An answer is being generated: the send button becomes Stop. */
  generating: boolean;
  disabled?: boolean;
  placeholder: string;
}

/** Ant Design X Sender: Enter sends, Shift+Enter adds a line; Stop while an answer is generated. */
export function ChatSender({ value, onChange, onSubmit, onStop, generating, disabled, placeholder }: ChatSenderProps) {
  return (
    <Sender
      className="chat-sender"
      value={value}
      onChange={(v) => onChange(v)}
      onSubmit={(v) => {
        if (v.trim()) onSubmit(v);
      }}
      onCancel={onStop}
      loading={generating}
      disabled={disabled}
      placeholder={placeholder}
      components={COMPONENTS}
      autoSize={{ minRows: 1, maxRows: 8 }}
      suffix={(_, { components: { SendButton, LoadingButton } }) =>
        generating ? (
          <LoadingButton shape="default" variant="outlined" icon={<StopOutlined aria-hidden="true" />} className="chat-sender__stop">
            Stop
          </LoadingButton>
        ) : (
          <SendButton aria-label="Send message" disabled={!value.trim() || disabled} />
        )
      }
    />
  );
}
