import { ApiOutlined, CommentOutlined, MailOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import type { ReactNode } from 'react';
import type { Conversation } from '../types';

interface ChannelInfo {
  label: string;
  color: string;
  icon: ReactNode;
  /** Said under the open conversation's header. */
  note: string;
}

/** Conversations that did not start in this chat (issue 15): e-mail, Google Docs comments, the API. */
export const CHANNELS: Record<string, ChannelInfo> = {
  email: {
    label: 'E-mail',
    color: 'purple',
    icon: <MailOutlined aria-hidden="true" />,
    note: 'This conversation started by e-mail. Replies to the e-mail thread continue it; messages you send here are answered here, not by e-mail.',
  },
  docs_comment: {
    label: 'Docs comment',
    color: 'magenta',
    icon: <CommentOutlined aria-hidden="true" />,
    note: 'This conversation started in a Google Docs comment. Messages you send here are answered here, not in the document.',
  },
  api: {
    label: 'API',
    color: 'blue',
    icon: <ApiOutlined aria-hidden="true" />,
    note: 'This conversation came through the API. Messages you send here are answered here.',
  },
};

/** The channel of a conversation that is not a plain chat, else null. */
export function channelOf(conversation: Pick<Conversation, 'channel'> | undefined | null): (ChannelInfo & { key: string }) | null {
  const key = conversation?.channel;
  if (!key || key === 'chat' || !Object.hasOwn(CHANNELS, key)) return null;
  return { key, ...CHANNELS[key] };
}

/** A small tag naming where the conversation came from ("E-mail", "Docs comment", "API"); nothing for chat. */
export function ChannelTag({ conversation }: { conversation: Pick<Conversation, 'channel'> | undefined | null }) {
  const channel = channelOf(conversation);
  if (!channel) return null;
  return (
    <Tag color={channel.color} icon={channel.icon} className="chat-channel-tag" data-testid="conversation-channel" data-channel={channel.key}>
      {channel.label}
    </Tag>
  );
}
