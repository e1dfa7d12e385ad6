/** Rich text from the CMS, which Craft delivers as HTML. */
export function RichText({ html, className }: { html: string | null | undefined; className?: string }) {
  // React would make any other value into markup as its string.
  if (typeof html !== 'string' || !html) return null
  return <div className={className ? `rich-text ${className}` : 'rich-text'} dangerouslySetInnerHTML={{ __html: html }} />
}
