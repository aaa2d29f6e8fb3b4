/** Readability's own small DOM parser (ships with `@mozilla/readability`, no types of its own). */
declare module "@mozilla/readability/JSDOMParser.js" {
  class JSDOMParser {
    parse(html: string, url?: string): unknown
  }
  export default JSDOMParser
}
