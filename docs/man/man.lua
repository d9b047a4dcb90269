-- man.lua: a pandoc filter that makes a man page of a header (NAME,
-- SYNOPSIS, ... as "##" sections) followed by one of docs/*.md: the
-- document's own "#" title is dropped and every other heading moves up one
-- level, so "##" sections are .SH and "###" are .SS.
--
-- A man page is read at the terminal's width (80 columns, often): the
-- docs' tables (a key, its type, default and meaning) become one
-- paragraph per row, the first cell its tag and the others "header:
-- cell" lines under it; the page is neither hyphenated nor justified
-- (.nh, .ad l), and a URL or path in code may break after a "/" or an
-- "&" (\:),
-- so that nothing is split inside a word and groff has no line it cannot
-- fill or break.
function Header(h)
  if h.level == 1 then
    return {}
  end
  h.level = h.level - 1
  return h
end

local function cell_inlines(blocks)
  local out = pandoc.List()
  for _, b in ipairs(blocks) do
    if b.content then
      if #out > 0 then
        out:insert(pandoc.Space())
      end
      out:extend(b.content)
    end
  end
  return out
end

function Table(tbl)
  local t = pandoc.utils.to_simple_table(tbl)
  local items = pandoc.List()
  for _, row in ipairs(t.rows) do
    local lines = pandoc.List()
    for j = 2, #row do
      local text = cell_inlines(row[j])
      if #text > 0 then
        local head = cell_inlines(t.headers[j] or {})
        if #lines > 0 then
          lines:insert(pandoc.RawInline("man", "\n.br\n")) -- keeps the .TP indent
        end
        if #head > 0 then
          lines:insert(pandoc.Emph(head))
          lines:insert(pandoc.Str(":"))
          lines:insert(pandoc.Space())
        end
        lines:extend(text)
      end
    end
    items:insert({cell_inlines(row[1]), {{pandoc.Plain(lines)}}})
  end
  return pandoc.DefinitionList(items)
end

-- code as the man writer sets it, with a break point after each "/" and "&"
local function man_code(text)
  local s = text:gsub("\\", "\\e"):gsub("%-", "\\-"):gsub("([/&])", "%1\\:")
  return pandoc.RawInline("man", "\\f[C]" .. s .. "\\f[R]")
end

function Code(c)
  if c.text:find("/") and #c.text > 20 then
    return man_code(c.text)
  end
end

function Pandoc(doc)
  doc.blocks:insert(1, pandoc.RawBlock("man", ".nh\n.ad l"))
  return doc
end
