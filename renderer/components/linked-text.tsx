import { Fragment } from 'react'
import { contactParts, phoneText } from '../../shared/contact-links.ts'

/** Plain text from the CMS with its phone numbers (tel:, E.164, never broken over lines) and e-mail addresses (mailto:) as links. */
export function LinkedText({ text }: { text: string }) {
  const parts = contactParts(text)
  if (parts.length === 1 && typeof parts[0] === 'string') return text
  return parts.map((part, index) =>
    typeof part === 'string' ? (
      <Fragment key={index}>{part}</Fragment>
    ) : (
      <a key={index} href={part.href}>
        {part.kind === 'tel' ? phoneText(part.text) : part.text}
      </a>
    ),
  )
}
