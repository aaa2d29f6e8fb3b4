/**
 * The command-line flags that set the caps of a page (`Limits.PageLimits`), defined once: the CLI's
 * read, `many` and `mcp` commands derive their options from this table, `cliArgs` the words they
 * take, and `settingsOf` the `Limits.Settings` a host would pass to `Limits.layer`.
 */
import type { PageLimitsShape, Settings } from "../../Limits.js"

export interface LimitFlag {
  /** The flag without its dashes: `max-lines`. */
  readonly flag: string
  /** The `PageLimits` field it sets. */
  readonly field: keyof PageLimitsShape
  /** The help line, for a person at a terminal. */
  readonly description: string
}

/** The page caps a host sets from the command line, by the name of the parsed option. */
export const limitFlags = {
  maxLines: {
    flag: "max-lines",
    field: "lines",
    description:
      "Lines on a page when limit is not given (default 2000); the tool's description and footers say the value"
  },
  maxLineLength: {
    flag: "max-line-length",
    field: "lineLength",
    description: "Characters shown of one line before it is cut (default 2000, at least 16)"
  },
  maxBytes: {
    flag: "max-bytes",
    field: "bytes",
    description: "Bytes of output on one page (default 51200: 50 KB, at least 1024)"
  },
  maxMediaBytes: {
    flag: "max-media-bytes",
    field: "mediaBytes",
    description: "Bytes of the largest image or PDF attached (default 20971520: 20 MB)"
  },
  maxDirectoryEntries: {
    flag: "max-directory-entries",
    field: "directoryEntries",
    description: "Entries on a page of a directory listing when limit is not given (default 2000)"
  }
} as const satisfies Record<string, LimitFlag>

export type LimitFlagName = keyof typeof limitFlags

/** The flags' names as written on the command line (`max-lines`, …): options that take a value. */
export const limitFlagWords: ReadonlyArray<string> = Object.values(limitFlags).map((flag) => flag.flag)

/** The settings the given flags ask for (flags not given are left out). */
export const settingsOf = (values: { readonly [K in LimitFlagName]?: number | undefined }): Settings => {
  const page: Record<string, number> = {}
  for (const [name, flag] of Object.entries(limitFlags)) {
    const value = values[name as LimitFlagName]
    if (value !== undefined) page[flag.field] = value
  }
  return Object.keys(page).length === 0 ? {} : { page }
}

/** `--max-lines` for `page.lines`: the flag that sets a setting, to name it in a usage error. */
export const flagOf = (setting: string): string | undefined => {
  const field = setting.startsWith("page.") ? setting.slice("page.".length) : undefined
  const found = Object.values(limitFlags).find((flag) => flag.field === field)
  return found === undefined ? undefined : `--${found.flag}`
}
