/**
 * The public registers a visitor checks a Dutch intermediary in, each at the
 * address of its search for the office's own number: the AFM's register of
 * financial service providers (vergunningnummer), Kifid's list of affiliated
 * firms and the Handelsregister of the KvK (KvK-nummer).
 */
export const afmRegisterUrl = (afmNumber: string): string =>
  `https://www.afm.nl/nl-nl/sector/registers/vergunningenregisters/financieel-dienstverleners?KeyWords=${encodeURIComponent(afmNumber)}`

/** Kifid's search of affiliated financial service providers: a visitor enters the aansluitnummer or the name. */
export const kifidRegisterUrl = (kifidNumber: string): string =>
  `https://www.kifid.nl/aangesloten-financiele-dienstverleners/?q=${encodeURIComponent(kifidNumber)}`

export const kvkRegisterUrl = (kvkNumber: string): string => `https://www.kvk.nl/zoeken/?source=all&q=${encodeURIComponent(kvkNumber)}`
