import { XMarkdown } from '@ant-design/x-markdown';

interface MarkdownProps {
  content: string;
  /** True while more text is coming: incomplete Markdown is held back and a caret shows. */
  streaming?: boolean;
}

/**
 * An answer rendered as Markdown with Ant Design X's renderer (marked + DOMPurify). Raw HTML in the
 * model's output is shown as text, never parsed; links open in a new tab with rel="noopener noreferrer".
 */
export function Markdown({ content, streaming = false }: MarkdownProps) {
  return (
    <XMarkdown
      className="chat-markdown"
      content={content}
      escapeRawHtml
      openLinksInNewTab
      streaming={{ hasNextChunk: streaming, tail: streaming }}
    />
  );
}
