#include "engine/profile/csv_table.hpp"

#include <stdexcept>

namespace warpsmith
{

std::vector<csv_row> parse_csv(std::string_view text)
{
    std::vector<csv_row> rows;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n)
    {
        // At the start of a line: ncu's own messages and blank lines are not rows.
        if (text.compare(i, 2, "==") == 0 || text[i] == '\n' || text[i] == '\r')
        {
            const std::size_t eol = text.find('\n', i);
            i = eol == std::string_view::npos ? n : eol + 1;
            continue;
        }
        csv_row row;
        std::string field;
        bool line_done = false;
        while (!line_done)
        {
            field.clear();
            if (i < n && text[i] == '"')
            {
                ++i;
                for (;;)
                {
                    if (i >= n)
                        throw std::invalid_argument("CSV: a quoted field is not closed");
                    if (text[i] == '"')
                    {
                        if (i + 1 < n && text[i + 1] == '"')
                        {
                            field += '"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    field += text[i++];
                }
                // Anything between the closing quote and the separator is kept, as lenient readers do.
                while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                    field += text[i++];
            }
            else
            {
                while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                    field += text[i++];
            }
            row.push_back(field);
            if (i < n && text[i] == ',')
            {
                ++i;
                continue;
            }
            if (i < n && text[i] == '\r')
                ++i;
            if (i < n && text[i] == '\n')
                ++i;
            line_done = true;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace warpsmith
