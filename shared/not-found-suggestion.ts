/**
 * The class of the 404 page's "Bedoelde u …?" paragraph: the renderer
 * writes it, the gateway finds it in the one stored 404 page and fills in
 * each visitor's suggestion, or takes it out (gateway/pages/not-found-page.ts).
 */
export const NOT_FOUND_SUGGESTION_CLASS = 'error-page__suggestion'
