// The text renderers: one self-contained HTML file, Markdown beside its chart PNGs, and JSON.
#include <nlohmann/json.hpp>

#include "report/report.h"
#include "util/json.h"

namespace anthro {
namespace {

using nlohmann::json;

std::string escape_html(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Any text a Markdown report writes (headings, paragraphs, list items, table cells): Markdown
// passes raw HTML through, so &, < and > become entities; a pipe or line break would end a
// table cell, brackets and backquotes would open a link or a code span.
std::string escape_markdown(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n':
      case '\r': out += ' '; break;
      case '|':
      case '\\':
      case '[':
      case ']':
      case '`': out += '\\', out += c; break;
      default: out += c;
    }
  }
  return out;
}

// A piece of document text: plain, or a code span (report_code).
struct TextRun {
  std::string text;
  bool code = false;
};

// The length of the run of backticks at `at`.
std::size_t backticks_at(const std::string& s, std::size_t at) {
  std::size_t end = s.find_first_not_of('`', at);
  return (end == std::string::npos ? s.size() : end) - at;
}

// Code spans read as CommonMark reads them: a run of N backticks opens one, the next run of
// exactly N closes it, one space each side is dropped; a run never closed is plain text.
std::vector<TextRun> text_runs(const std::string& s) {
  std::vector<TextRun> runs;
  std::string plain;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '`') {
      plain += s[i++];
      continue;
    }
    const std::size_t open = backticks_at(s, i);
    std::size_t close = i + open;
    while ((close = s.find('`', close)) != std::string::npos && backticks_at(s, close) != open) close += backticks_at(s, close);
    if (close == std::string::npos) {
      plain.append(s, i, open);
      i += open;
      continue;
    }
    std::string code = s.substr(i + open, close - i - open);
    if (code.size() > 2 && code.front() == ' ' && code.back() == ' ' && code.find_first_not_of(' ') != std::string::npos)
      code = code.substr(1, code.size() - 2);
    if (!plain.empty()) runs.push_back({std::move(plain), false}), plain.clear();
    runs.push_back({std::move(code), true});
    i = close + open;
  }
  if (!plain.empty()) runs.push_back({std::move(plain), false});
  return runs;
}

// Document text as HTML: code spans as <code>, everything escaped.
std::string inline_html(const std::string& s) {
  std::string out;
  for (const auto& r : text_runs(s)) out += r.code ? "<code>" + escape_html(r.text) + "</code>" : escape_html(r.text);
  return out;
}

// Document text without its span marks (the HTML <title>).
std::string plain_text(const std::string& s) {
  std::string out;
  for (const auto& r : text_runs(s)) out += r.text;
  return out;
}

// Document text as Markdown: code spans stay code spans (their text literal, one line; in a
// table cell a pipe escaped, as GFM asks even there), the rest escaped.
std::string inline_markdown(const std::string& s, bool table_cell = false) {
  std::string out;
  for (const auto& r : text_runs(s)) {
    if (!r.code) {
      out += escape_markdown(r.text);
      continue;
    }
    std::string code;
    for (char c : r.text) code += c == '\n' || c == '\r' ? std::string(" ") : table_cell && c == '|' ? std::string("\\|") : std::string(1, c);
    out += report_code(code);
  }
  return out;
}

const char* kCss = R"css(
body{font-family:"Noto Sans","Noto Sans CJK SC",sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#1d1d1f;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.05em;margin:1.2em 0 .3em}h4{font-size:1em;margin:1em 0 .3em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em;width:100%}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f2f2f2}table.facts{width:auto}table.facts th,table.facts td{border:none;background:none;padding:.1em 1em .1em 0}
table.facts th{white-space:nowrap}
.chip{display:inline-block;padding:0 .55em;border-radius:.8em;font-size:.85em;font-weight:600;color:#fff;margin-right:.4em}
.pass{background:#2e7d32}.warn{background:#ef6c00}.fail{background:#c62828}.inconclusive{background:#f9a825;color:#222}.manual{background:#546e7a}
figure{margin:.8em 0;page-break-inside:avoid}figure svg{max-width:100%;height:auto}figcaption{font-size:.85em;color:#555}
code{font-family:"Noto Sans Mono CJK SC","Noto Sans Mono","DejaVu Sans Mono",monospace;font-variant-ligatures:none;font-feature-settings:"liga" 0,"clig" 0,"dlig" 0,"calt" 0}
.more{font-style:italic;color:#555}.redactions{font-size:.85em;color:#555}
section{page-break-inside:auto}@media print{body{margin:0;max-width:none}h2{page-break-after:avoid}}
)css";

std::string chip(Verdict v, const std::string& text) {
  return std::string("<span class=\"chip ") + to_string(v) + "\">" + escape_html(text) + "</span> ";
}

class Html {
 public:
  Html(const ReportDocument& doc, const std::function<std::string(const ReportChart&)>& markup)
      : doc_(doc), markup_(markup) {}

  std::string render() {
    out_ += "<!DOCTYPE html>\n<html lang=\"" + std::string(doc_.lang == "zh_CN" ? "zh-CN" : "en") +
            "\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape_html(plain_text(doc_.title)) + "</title>\n<style>" + kCss +
            "</style>\n</head>\n<body>\n<h1>";
    if (doc_.verdict) out_ += chip(*doc_.verdict, verdict_word(*doc_.verdict));
    out_ += inline_html(doc_.title) + "</h1>\n";
    list(label("Summary"), doc_.summary);
    facts(label("Environment"), doc_.environment);
    // What the report leaves out, before what it shows (and never a last page of its own).
    out_ += "<h2>" + escape_html(label("Redacted")) + "</h2>\n<ul class=\"redactions\">";
    if (doc_.redactions.empty()) out_ += "<li>" + escape_html(label("nothing was redacted")) + "</li>";
    for (const auto& r : doc_.redactions) out_ += "<li>" + escape_html(r) + "</li>";
    out_ += "</ul>\n";
    for (const auto& s : doc_.sections) section(s, 2);
    out_ += "</body>\n</html>\n";
    return std::move(out_);
  }

 private:
  // The document's own translation of a label the renderer adds.
  std::string label(const std::string& english) const {
    auto it = doc_.labels.find(english);
    return it == doc_.labels.end() ? english : it->second;
  }
  std::string verdict_word(Verdict v) const { return label(to_string(v)); }

  void list(const std::string& heading, const std::vector<std::string>& lines) {
    out_ += "<h2>" + escape_html(heading) + "</h2>\n<ul>\n";
    for (const auto& l : lines) out_ += "<li>" + inline_html(l) + "</li>\n";
    out_ += "</ul>\n";
  }
  void facts(const std::string& heading, const std::vector<std::pair<std::string, std::string>>& facts) {
    if (!heading.empty()) out_ += "<h2>" + escape_html(heading) + "</h2>\n";
    out_ += "<table class=\"facts\">\n";
    for (const auto& [k, v] : facts) out_ += "<tr><th>" + escape_html(k) + "</th><td>" + inline_html(v) + "</td></tr>\n";
    out_ += "</table>\n";
  }
  void table(const ReportTable& t) {
    out_ += "<table>\n<thead><tr>";
    for (const auto& c : t.columns) out_ += "<th>" + escape_html(c) + "</th>";
    out_ += "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows) {
      out_ += "<tr>";
      for (const auto& cell : row) out_ += "<td>" + inline_html(cell) + "</td>";
      out_ += "</tr>\n";
    }
    out_ += "</tbody>\n</table>\n";
    if (t.more) {
      std::string more = label("%1 more rows in the JSON");
      more.replace(more.find("%1"), 2, std::to_string(t.more));
      out_ += "<p class=\"more\">" + escape_html(more) + "</p>\n";
    }
  }
  void chart(const ReportChart& c) {
    std::string markup = markup_ ? markup_(c) : std::string();
    if (markup.rfind("<?", 0) == 0 || markup.rfind("<!", 0) == 0) {  // an SVG file's prolog has no place inside HTML
      auto start = markup.find("<svg");
      markup = start == std::string::npos ? std::string() : markup.substr(start);
    }
    out_ += "<figure id=\"chart-" + escape_html(c.id) + "\">\n" + markup +
            "\n<figcaption>" + inline_html(c.title) + " (n = " + std::to_string(c.points) +
            (c.drawn < c.points ? ", " + std::to_string(c.drawn) + " drawn" : "") + ")</figcaption>\n</figure>\n";
  }
  void section(const ReportSection& s, int level) {
    std::string h = "h" + std::to_string(std::min(level, 4));
    out_ += "<section>\n<" + h + ">" + (s.verdict ? chip(*s.verdict, verdict_word(*s.verdict)) : "") + inline_html(s.heading) +
            "</" + h + ">\n";
    for (const auto& p : s.paragraphs) out_ += "<p>" + inline_html(p) + "</p>\n";
    if (!s.facts.empty()) facts("", s.facts);
    for (const auto& t : s.tables) table(t);
    for (std::size_t i : s.charts) chart(doc_.charts[i]);
    for (const auto& c : s.children) section(c, level + 1);
    out_ += "</section>\n";
  }

  const ReportDocument& doc_;
  const std::function<std::string(const ReportChart&)>& markup_;
  std::string out_;
};

void markdown_section(const ReportDocument& doc, const ReportSection& s, int level, std::string& out,
                      const std::function<std::string(const ReportChart&)>& png) {
  auto word = [&](Verdict v) {
    auto it = doc.labels.find(to_string(v));
    return it == doc.labels.end() ? std::string(to_string(v)) : it->second;
  };
  out += "\n" + std::string(std::min(level, 6), '#') + " " + (s.verdict ? "**" + escape_markdown(word(*s.verdict)) + "** " : "") +
         inline_markdown(s.heading) + "\n\n";
  for (const auto& p : s.paragraphs) out += inline_markdown(p) + "\n\n";
  for (const auto& [k, v] : s.facts) out += "- **" + escape_markdown(k) + "**: " + inline_markdown(v) + "\n";
  if (!s.facts.empty()) out += "\n";
  for (const auto& t : s.tables) {
    out += "|";
    for (const auto& c : t.columns) out += " " + escape_markdown(c) + " |";
    out += "\n|";
    for (std::size_t i = 0; i < t.columns.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row : t.rows) {
      out += "|";
      for (const auto& cell : row) out += " " + inline_markdown(cell, true) + " |";
      out += "\n";
    }
    if (t.more) {
      auto it = doc.labels.find("%1 more rows in the JSON");
      std::string more = it == doc.labels.end() ? "%1 more rows in the JSON" : it->second;
      more.replace(more.find("%1"), 2, std::to_string(t.more));
      out += "\n*" + escape_markdown(more) + "*\n";
    }
    out += "\n";
  }
  for (std::size_t i : s.charts) {
    const ReportChart& c = doc.charts[i];
    std::string path = png ? png(c) : std::string();
    if (!path.empty()) out += "![" + escape_markdown(plain_text(c.title)) + "](" + path + ")\n\n";
  }
  for (const auto& c : s.children) markdown_section(doc, c, level + 1, out, png);
}

json section_json(const ReportDocument& doc, const ReportSection& s) {
  json facts = json::array(), tables = json::array(), charts = json::array(), children = json::array();
  for (const auto& [k, v] : s.facts) facts.push_back({{"label", k}, {"value", v}});
  for (const auto& t : s.tables) tables.push_back({{"columns", t.columns}, {"rows", t.rows}, {"more", t.more}});
  for (std::size_t i : s.charts) charts.push_back(doc.charts[i].id);
  for (const auto& c : s.children) children.push_back(section_json(doc, c));
  return {{"heading", s.heading},
          {"verdict", s.verdict ? json(to_string(*s.verdict)) : json(nullptr)},
          {"paragraphs", s.paragraphs},
          {"facts", facts},
          {"tables", tables},
          {"charts", charts},
          {"sections", children}};
}

}  // namespace

std::string report_code(const std::string& text) {
  if (text.empty()) return text;
  std::size_t longest = 0;
  for (std::size_t at = 0; (at = text.find('`', at)) != std::string::npos;) {
    longest = std::max(longest, backticks_at(text, at));
    at += backticks_at(text, at);
  }
  const std::string fence(longest + 1, '`');
  // A space each side keeps a backtick at either end off the fence, and spaces at both ends kept.
  const bool pad = text.front() == '`' || text.back() == '`' ||
                   (text.size() > 1 && text.front() == ' ' && text.back() == ' ' && text.find_first_not_of(' ') != std::string::npos);
  return pad ? fence + " " + text + " " + fence : fence + text + fence;
}

std::string report_html(const ReportDocument& doc, const std::function<std::string(const ReportChart&)>& chart_markup) {
  return Html(doc, chart_markup).render();
}

std::string report_markdown(const ReportDocument& doc, const std::function<std::string(const ReportChart&)>& chart_png) {
  auto label = [&](const std::string& english) {
    auto it = doc.labels.find(english);
    return escape_markdown(it == doc.labels.end() ? english : it->second);
  };
  std::string out = "# " + (doc.verdict ? "**" + label(to_string(*doc.verdict)) + "** " : "") + inline_markdown(doc.title) +
                    "\n\n## " + label("Summary") + "\n\n";
  for (const auto& l : doc.summary) out += "- " + inline_markdown(l) + "\n";
  out += "\n## " + label("Environment") + "\n\n";
  for (const auto& [k, v] : doc.environment) out += "- **" + escape_markdown(k) + "**: " + inline_markdown(v) + "\n";
  out += "\n## " + label("Redacted") + "\n\n";  // as in HTML: before what the report shows
  if (doc.redactions.empty()) out += "- " + label("nothing was redacted") + "\n";
  for (const auto& r : doc.redactions) out += "- " + escape_markdown(r) + "\n";  // not a code span: a ` would end it
  for (const auto& s : doc.sections) markdown_section(doc, s, 2, out, chart_png);
  return out;
}

std::string report_json(const ReportDocument& doc) {
  json sections = json::array(), charts = json::array(), env = json::array();
  for (const auto& s : doc.sections) sections.push_back(section_json(doc, s));
  for (const auto& c : doc.charts)
    charts.push_back({{"id", c.id}, {"kind", to_string(c.kind)}, {"title", c.title}, {"points", c.points}, {"drawn", c.drawn}});
  for (const auto& [k, v] : doc.environment) env.push_back({{"label", k}, {"value", v}});
  auto result = parse_json(doc.result_json);
  json out = {{"kind", "report"},
              {"schema_version", 1},
              {"report",
               {{"result_kind", to_string(doc.kind)},
                {"title", doc.title},
                {"lang", doc.lang},
                {"verdict", doc.verdict ? json(to_string(*doc.verdict)) : json(nullptr)},
                {"summary", doc.summary},
                {"environment", env},
                {"sections", sections},
                {"charts", charts},
                {"redactions", doc.redactions}}},
              {"result", result ? std::move(*result) : json(nullptr)}};
  return dump_json(out, 2);
}

}  // namespace anthro
