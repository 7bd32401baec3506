import { useId, useRef, useState } from 'react';

/** Text to paste into another program, with a copy button; selected instead when the clipboard is refused. */
export function CodeBlock({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const block = useRef<HTMLPreElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // Clipboard access can be refused (no https, no permission): the text is selected to copy by hand.
      const range = document.createRange();
      if (block.current) range.selectNodeContents(block.current);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }
  };
  return (
    <div className="code-block">
      <pre id={id} ref={block} className="output command" aria-label={label} tabIndex={0}>
        {text}
      </pre>
      <button type="button" aria-describedby={id} aria-label={`Copy ${label}`} onClick={() => void copy()} onBlur={() => setCopied(false)}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
