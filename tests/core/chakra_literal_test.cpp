// The integer scanning under the Chakra IOInfo fast paths (shapes, tensor
// tuples): every length of number, the bytes around the digit range after it,
// and every distance from the end of the text, against plain parsing. (A
// word-at-a-time scanner was tried against these and measured slower on
// real traces, whose numbers are one to four digits.)
#include "io/chakra/chakra_literal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mimic {
namespace {

// Reads "[a, b, ...]" with the fast list path; false if it refuses.
bool read_ints(const std::string& text, std::vector<int64_t>& out) {
    LiteralCursor c;
    c.reset(text);
    Column<int64_t> col;
    if (!c.read_int_list(col, 64)) return false;
    out.assign(col.begin(), col.end());
    return true;
}

TEST(ChakraLiteral, IntegersOfEveryLengthReadWhateverFollowsThem) {
    std::string digits = "9876543210123456789";
    for (size_t len = 1; len <= 18; ++len) {
        const std::string num = digits.substr(0, len);
        const int64_t want = std::stoll(num);
        for (const char* sign : {"", "-"}) {
            // Right at the end of the text, and with room for a whole 8-byte read after it.
            for (const char* after : {"]", " ]", ", 7]", ",7, 123456789012]", "]            "}) {
                std::vector<int64_t> got;
                const std::string text = "[" + std::string(sign) + num + after;
                ASSERT_TRUE(read_ints(text, got)) << text;
                ASSERT_FALSE(got.empty()) << text;
                EXPECT_EQ(got[0], *sign == 0 ? want : -want) << text;
            }
        }
    }
}

TEST(ChakraLiteral, FloatsLongNumbersAndNonDigitsAreNotIntegers) {
    std::vector<int64_t> got;
    for (const char* text :
         {"[1.5]", "[12e3]", "[1234567E2]", "[12345678.0]", "[1234567890123456789]", "[-]", "[x1]", "[1x]",
          "[12345678901234567890123]", "[\xfa\xfa\xfa\xfa\xfa\xfa\xfa\xfa\xfa]", "[1\xfa""2345678]"})
        EXPECT_FALSE(read_ints(text, got)) << text;
}

TEST(ChakraLiteral, DigitsNextToBytesJustOutsideTheDigitRange) {
    // '/' and ':' sit on either side of '0'..'9'; '*' and '#' hit the nibble tricks' edges.
    std::vector<int64_t> got;
    for (char c : std::string("/:*#@\x7f\x80\xf9\xff")) {
        const std::string text = std::string("[1234") + c + "5678]";
        EXPECT_FALSE(read_ints(text, got)) << int(static_cast<unsigned char>(c));
    }
    ASSERT_TRUE(read_ints("[0, 00000001, 10000000, 99999999, 7]", got));
    EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 10000000, 99999999, 7}));
}

}  // namespace
}  // namespace mimic
