/** Rich text from the CMS, which Craft delivers as HTML. */
export function RichText({ html, className }: { html: string | null | undefined; className?: string }) {
  if (!html) return null
  return <div className={className ? `rich-text ${className}` : 'rich-text'} dangerouslySetInnerHTML={{ __html: html }} />
}
