"""Small PDFs drawn with fpdf2 in the shapes real documents take: numbered outlines with
lists inside, lists set in two columns, title blocks, and financial statements whose rows
are shaded bands with the figures laid out as text under period headers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fpdf import FPDF

BODY_SIZE = 10
LINE = 5.0


class DocumentPdf:
    """A page-by-page writer: headings, body, list items, two-column lists, statements."""

    def __init__(self) -> None:
        self.pdf = FPDF(format="A4")
        self.pdf.set_auto_page_break(auto=True, margin=15)
        self.pdf.add_page()
        self.pdf.set_font("helvetica", size=BODY_SIZE)

    def heading(self, text: str, *, size: float = 11) -> None:
        self.pdf.ln(2)
        self.pdf.set_font("helvetica", "B", size)
        self.pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font("helvetica", size=BODY_SIZE)

    def title_lines(self, *lines: str) -> None:
        """A title set over several bold lines with nothing between them."""
        self.pdf.ln(2)
        self.pdf.set_font("helvetica", "B", 11)
        for line in lines:
            self.pdf.cell(0, 6, line, align="C", new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font("helvetica", size=BODY_SIZE)

    def title_beside(self, left: str, right: str) -> None:
        """A bold title line with a second title set flush right on the same line (a
        statement's name, and the company it is for)."""
        self.pdf.ln(2)
        self.pdf.set_font("helvetica", "B", BODY_SIZE)
        self.pdf.cell(0, 6, left)
        self.pdf.set_x(self.pdf.l_margin)
        self.pdf.cell(0, 6, right, align="R", new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font("helvetica", size=BODY_SIZE)

    def body(self, text: str) -> None:
        self.pdf.multi_cell(0, LINE, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.ln(2)

    def item(self, text: str, *, bold: bool = False) -> None:
        """One line of a list, at the body margin like the text around it; a bold item is
        set like the headings."""
        self.pdf.set_font("helvetica", "B" if bold else "", 11 if bold else BODY_SIZE)
        self.pdf.cell(0, LINE, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font("helvetica", size=BODY_SIZE)

    def two_columns(self, left: Sequence[str], right: Sequence[str]) -> None:
        """Two lists side by side, each item on its own line, the columns starting together."""
        pdf = self.pdf
        top, half, bottom = pdf.get_y(), pdf.epw / 2, pdf.get_y()
        for column, items in ((0, left), (1, right)):
            pdf.set_y(top)
            for text in items:
                pdf.set_x(pdf.l_margin + column * half)
                pdf.multi_cell(half - 8, LINE, text, new_x="LEFT", new_y="NEXT")
            bottom = max(bottom, pdf.get_y())
        pdf.set_xy(pdf.l_margin, bottom + 2)

    def pairs(self, rows: Sequence[tuple[str, str]], right_from: float) -> None:
        """Rows of two short texts on one line each (an item and where it is disclosed), the
        right ones starting `right_from` points from the left margin."""
        pdf = self.pdf
        for left, right in rows:
            pdf.cell(right_from, LINE, left)
            pdf.cell(0, LINE, right, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)

    def statement(
        self,
        headers: Sequence[Sequence[str]],
        rows: Sequence[tuple[str, Sequence[str]]],
        *,
        scale: str,
    ) -> None:
        """Rows of a financial statement: label on the left, figures right-aligned in
        period columns, every other row shaded as its own band (what `find_tables` sees
        as many one-row tables). `headers` are lines over the figure columns; the scale
        note sits at the left of the last header line. A row with no figures is a
        caption ("Current assets")."""
        pdf = self.pdf
        label_width, value_width = 100.0, 30.0
        pdf.set_font("helvetica", "B", 8)
        for n, header in enumerate(headers):
            if n == len(headers) - 1:
                pdf.cell(label_width, 4, scale)
            else:
                pdf.cell(label_width, 4, "")
            for text in header:
                pdf.cell(value_width, 4, text, align="R")
            pdf.ln(4)
        pdf.set_font("helvetica", size=8)
        for n, (label, values) in enumerate(rows):
            y = pdf.get_y()
            if n % 2 == 0:
                pdf.set_fill_color(204, 238, 255)
                for k in range(len(headers[-1]) + 1):
                    x = pdf.l_margin + (0 if k == 0 else label_width + (k - 1) * value_width)
                    width = label_width if k == 0 else value_width
                    pdf.rect(x, y, width, 4, style="F")
            pdf.cell(label_width, 4, label)
            for value in values:
                pdf.cell(value_width, 4, value, align="R")
            pdf.ln(4)
        pdf.ln(3)
        pdf.set_font("helvetica", size=BODY_SIZE)

    def save(self, path: Path) -> Path:
        self.pdf.output(str(path))
        return path
