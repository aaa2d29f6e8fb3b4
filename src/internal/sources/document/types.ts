/** What a converter returns: the text to page, and a note for the top of the output. */
export interface Converted {
  readonly text: string
  readonly note?: string | undefined
}
