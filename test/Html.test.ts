/**
 * HTML to markdown without a browser DOM package: htmlparser2 closes what the web leaves open,
 * JSDOMParser builds the DOM, our writer makes the markdown (web pages and documents).
 */
import { describe, expect, it } from "@effect/vitest"
import { normalize } from "../src/internal/html/parse.js"
import { htmlToMarkdown as documentMarkdown } from "../src/internal/sources/document/markdown.js"
import { htmlToMarkdown } from "../src/internal/sources/web/html.js"

const page = (body: string, head = "<title>T</title>") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`

const web = (html: string, url = "https://example.com/docs/page.html") => htmlToMarkdown(html, new URL(url)).text

describe("normalize", () => {
  it("closes what the page leaves open, decodes named entities, drops scripts, styles and comments", () => {
    const normalized = normalize(
      `<title>A &amp; B</title><p>one &mdash; &nbsp;two<p>three <b>bold<li>x<br>y<!-- note --><script>if (a < b) {}</script><style>p{}</style>`
    )
    expect(normalized.title).toBe("A & B")
    expect(normalized.html).toBe(
      `<html><head><title>A &amp; B</title></head><body><p>one \u2014 \u00a0two</p><p>three <b>bold<li>x<br/>y</li></b></p></body></html>`
    )
  })

  it("escapes text and attributes so the DOM reads them back as they were", () => {
    const normalized = normalize(`<a href='/x?a=1&amp;b="2"' data-x="&lt;i&gt;">1 &lt; 2 &amp;&amp; 3 &gt; 2</a>`)
    expect(normalized.html).toContain(
      `<a href="/x?a=1&amp;b=&quot;2&quot;" data-x="&lt;i>">1 &lt; 2 &amp;&amp; 3 &gt; 2</a>`
    )
  })
})

describe("web pages", () => {
  it("a page of unclosed paragraphs and list items, with entities, reads as written", () => {
    expect(web(page(`<p>Caf&eacute; &ndash; menu<ul><li>tea<li>coffee &amp; cake</ul><p>Open &lt;daily&gt;`))).toBe(
      "# T\n\nCafé – menu\n\n- tea\n- coffee & cake\n\nOpen <daily>\n"
    )
  })

  it("inline code (code, tt, kbd) is delimited, longer when the code holds backticks; no backslash escapes", () => {
    expect(
      web(
        page(
          `<p>Run <tt>make_all</tt>, press <kbd>Ctrl</kbd>, type <code>a \`b\` c</code> or <code>\`x</code>; a_b *c*</p>`
        )
      )
    )
      .toBe("# T\n\nRun `make_all`, press `Ctrl`, type ``a `b` c`` or `` `x ``; a_b *c*\n")
  })

  it("a list nested right inside a list belongs to the item before it, as one inside the item does", () => {
    expect(web(page(`<ul><li>a<ul><li>a1</li></ul></li><ul><li>b1</li></ul><li>c</li></ul>`))).toBe(
      "# T\n\n- a\n  - a1\n  - b1\n- c\n"
    )
  })

  it("links resolve against <base href>; links to a part of the page are kept", () => {
    const markdown = web(
      page(
        `<p><a href="guide.html">Guide</a>, <a href="#usage">usage</a>, <img src="i.png" alt="Logo"></p>`,
        `<title>T</title><base href="https://cdn.example.org/v2/">`
      )
    )
    expect(markdown).toBe(
      "# T\n\n[Guide](https://cdn.example.org/v2/guide.html), [usage](#usage), ![Logo](https://cdn.example.org/v2/i.png)\n"
    )
  })

  it("a <pre> whose code has a run of backticks gets a longer fence; its blank lines are kept", () => {
    expect(web(page("<pre>\n```\nx\n\n\ny\n</pre>"))).toBe("# T\n\n````\n```\nx\n\n\ny\n````\n")
  })

  it("a footnote's way back (↑, ↩, ^ linking into the page) is dropped; the note's text stays", () => {
    expect(
      web(page(
        `<p>Claim<sup><a href="#fn1">[1]</a></sup>.</p><ol><li id="fn1">Source. <a href="#ref1">↑</a> <a href="#ref1b">↩︎</a> <a href="#r">^</a></li></ol>`
      ))
    ).toBe("# T\n\nClaim[[1]](#fn1).\n\n1. Source.\n")
  })

  it("struck-out text is marked struck: <s>, <del> and <strike>", () => {
    expect(web(page(`<p><s>$20</s> $15, <del>draft</del> <ins>final</ins>, <strike> old </strike>text</p>`))).toBe(
      "# T\n\n~~$20~~ $15, ~~draft~~ final, ~~old~~ text\n"
    )
  })

  it("whitespace is placed as a reader sees it: around emphasis, not inside it", () => {
    expect(web(page(`<p>such as</p><p><i>arguments</i><b> and </b><i>\n more </i>text</p>`))).toBe(
      "# T\n\nsuch as\n\n_arguments_ **and** _more_ text\n"
    )
  })
})

describe("documents", () => {
  it("links are kept only when they lead out of the document; images are a notice", async () => {
    expect(
      await documentMarkdown(
        `<p>See <a href="#ch2">chapter 2</a>, <a href="https://example.com">the site</a>. <img src="a.png" alt="A map"/></p>`
      )
    )
      .toBe("See chapter 2, [the site](https://example.com). [image: A map]")
  })

  it("XHTML self-closing elements close themselves", async () => {
    expect(await documentMarkdown(`<div/><p>one</p><a id="x"/><p>two</p>`)).toBe("one\n\ntwo")
  })
})
