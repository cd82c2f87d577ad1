#include "print_buffer.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "xgpu/kernel_print.h"

namespace xgpu::amdgpu {
namespace {

const char* tag_name(uint32_t tag) {
  switch (tag) {
    case XGPU_PRINT_TAG_I64: return "a signed integer";
    case XGPU_PRINT_TAG_U64: return "an unsigned integer";
    case XGPU_PRINT_TAG_F64: return "a float";
    case XGPU_PRINT_TAG_STR: return "a string";
    case XGPU_PRINT_TAG_PTR: return "a pointer";
    default: return "an unknown value";
  }
}

double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

// snprintf into a std::string.
template <typename T>
std::string print_one(const std::string& spec, T value) {
  char small[128];
  const int n = std::snprintf(small, sizeof(small), spec.c_str(), value);
  if (n < 0) return "<bad conversion " + spec + ">";
  if (size_t(n) < sizeof(small)) return std::string(small, size_t(n));
  std::string out(size_t(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), spec.c_str(), value);
  out.resize(size_t(n));
  return out;
}

}  // namespace

std::string format_print(const std::string& format, const std::vector<PrintValue>& values) {
  std::string out;
  size_t next = 0;  // next value
  auto take = [&](const PrintValue** value) {
    if (next >= values.size()) return false;
    *value = &values[next++];
    return true;
  };
  for (size_t i = 0; i < format.size();) {
    const char c = format[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    const size_t start = i++;
    std::string flags;
    while (i < format.size() && std::strchr("-+ #0", format[i])) flags += format[i++];
    std::string width, precision;
    bool has_precision = false;
    std::string problem;
    auto star = [&](std::string* field) {
      const PrintValue* v = nullptr;
      if (!take(&v)) {
        problem = "no value for *";
      } else if (v->tag != XGPU_PRINT_TAG_I64 && v->tag != XGPU_PRINT_TAG_U64) {
        problem = std::string("* given ") + tag_name(v->tag);
      } else {
        *field = std::to_string(int64_t(v->bits));
      }
      ++i;
    };
    if (i < format.size() && format[i] == '*') {
      star(&width);
    } else {
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') width += format[i++];
    }
    if (i < format.size() && format[i] == '.') {
      has_precision = true;
      ++i;
      if (i < format.size() && format[i] == '*') {
        star(&precision);
      } else {
        while (i < format.size() && format[i] >= '0' && format[i] <= '9') precision += format[i++];
      }
    }
    while (i < format.size() && std::strchr("hljztL", format[i])) ++i;  // the value's width is known
    if (i >= format.size()) {
      out += "<incomplete conversion " + format.substr(start) + ">";
      break;
    }
    const char conversion = format[i++];
    const std::string spec_text = format.substr(start, i - start);
    if (!problem.empty()) {
      out += "<" + spec_text + ": " + problem + ">";
      continue;
    }
    std::string spec = "%" + flags + width + (has_precision ? "." + precision : "");
    const PrintValue* v = nullptr;
    if (!std::strchr("diuoxXcfFeEgGaAsp", conversion)) {
      out += "<" + spec_text + ": unknown conversion>";
      continue;
    }
    if (!take(&v)) {
      out += "<" + spec_text + ": no value>";
      continue;
    }
    const bool integer = v->tag == XGPU_PRINT_TAG_I64 || v->tag == XGPU_PRINT_TAG_U64;
    switch (conversion) {
      case 'd':
      case 'i':
        if (!integer) break;
        out += print_one(spec + "lld", static_cast<long long>(v->bits));
        continue;
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        if (!integer) break;
        out += print_one(spec + "ll" + conversion, static_cast<unsigned long long>(v->bits));
        continue;
      case 'c':
        if (!integer) break;
        out += print_one(spec + "c", static_cast<int>(v->bits & 0xFF));
        continue;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A':
        if (v->tag != XGPU_PRINT_TAG_F64) break;
        out += print_one(spec + conversion, as_double(v->bits));
        continue;
      case 's':
        if (v->tag != XGPU_PRINT_TAG_STR) break;
        out += print_one(spec + "s", v->string.c_str());
        continue;
      case 'p':
        if (v->tag != XGPU_PRINT_TAG_PTR && v->tag != XGPU_PRINT_TAG_STR) break;
        out += print_one(spec + "s", ("0x" + print_one("%" PRIx64, v->bits)).c_str());
        continue;
      default:
        break;
    }
    out += "<" + spec_text + ": " + tag_name(v->tag) + ">";
  }
  if (next < values.size())
    out += " <" + std::to_string(values.size() - next) + " more value" + (values.size() - next == 1 ? "" : "s") +
           " than conversions>";
  return out;
}

PrintBufferContents decode_print_buffer(const uint8_t* buffer, size_t bytes) {
  PrintBufferContents result;
  xgpu_print_buffer_header_t header;
  if (bytes < sizeof(header)) {
    result.error = "the buffer is smaller than its header";
    return result;
  }
  std::memcpy(&header, buffer, sizeof(header));
  if (header.magic != XGPU_PRINT_BUFFER_MAGIC) {
    result.error = "the buffer's header was overwritten (magic " + print_one("0x%08x", header.magic) + ")";
    return result;
  }
  result.dropped = header.dropped;
  const uint64_t capacity = std::min<uint64_t>(header.capacity, bytes - sizeof(header));
  const uint64_t used = std::min<uint64_t>(header.head, capacity);
  const uint8_t* records = buffer + sizeof(header);
  for (uint64_t at = 0; at < used;) {
    const std::string where = "record at offset " + std::to_string(at);
    xgpu_print_record_t record;
    if (used - at < sizeof(record)) {
      result.error = where + ": cut short";
      break;
    }
    std::memcpy(&record, records + at, sizeof(record));
    if (record.size == 0) break;  // the end a dropped reservation marks (no record follows it)
    if (record.size < sizeof(record) || record.size % 8 != 0 || record.size > used - at) {
      result.error = where + ": size " + std::to_string(record.size) + " is not a record's";
      break;
    }
    const uint64_t end = at + record.size;
    uint64_t cursor = at + sizeof(record);
    if (record.count > XGPU_PRINT_MAX_VALUES || record.count * uint64_t(8) > end - cursor ||
        (record.kind != XGPU_PRINT_KIND_PRINTF && record.kind != XGPU_PRINT_KIND_ASSERT &&
         record.kind != XGPU_PRINT_KIND_BOUNDS)) {
      result.error = where + ": kind " + std::to_string(record.kind) + ", " + std::to_string(record.count) +
                     " values: not a record's";
      break;
    }
    std::vector<PrintValue> values(record.count);
    for (uint32_t v = 0; v < record.count; ++v) {
      values[v].tag = uint32_t(record.tags >> (4 * v)) & 0xF;
      std::memcpy(&values[v].bits, records + cursor, 8);
      cursor += 8;
    }
    bool ok = true;
    for (PrintValue& value : values) {
      if (value.tag != XGPU_PRINT_TAG_STR) continue;
      const void* nul = std::memchr(records + cursor, 0, end - cursor);
      if (!nul) {
        ok = false;
        break;
      }
      const size_t length = static_cast<const uint8_t*>(nul) - (records + cursor);
      value.string.assign(reinterpret_cast<const char*>(records + cursor), length);
      cursor += length + 1;
    }
    if (!ok) {
      result.error = where + ": a string runs past the record";
      break;
    }
    PrintLine line;
    std::memcpy(line.workgroup_id, record.workgroup_id, sizeof(line.workgroup_id));
    std::memcpy(line.local_id, record.local_id, sizeof(line.local_id));
    line.dispatch = record.dispatch;
    if (record.kind == XGPU_PRINT_KIND_BOUNDS) {
      line.out_of_bounds = true;
      const bool shaped = values.size() == XGPU_PRINT_BOUNDS_VALUE_COUNT && values[0].tag == XGPU_PRINT_TAG_U64 &&
                          values[1].tag == XGPU_PRINT_TAG_I64 && values[2].tag == XGPU_PRINT_TAG_U64 &&
                          values[3].tag == XGPU_PRINT_TAG_U64 && values[4].tag == XGPU_PRINT_TAG_STR &&
                          values[5].tag == XGPU_PRINT_TAG_U64;
      if (shaped) {
        const int64_t offset = int64_t(values[1].bits);
        line.text = "binding " + std::to_string(values[0].bits) + ": an access of " + std::to_string(values[2].bits) +
                    " byte" + (values[2].bits == 1 ? "" : "s") + " at offset " + std::to_string(offset) +
                    " lies outside the binding's range of " + std::to_string(values[3].bits) + " bytes [0, " +
                    std::to_string(values[3].bits) + ")";
        if (!values[4].string.empty())
          line.text += " at " + values[4].string + ":" + std::to_string(values[5].bits);
      } else {
        line.text = "(a bounds record of another shape)";
      }
    } else if (record.kind == XGPU_PRINT_KIND_ASSERT) {
      line.assert_failed = true;
      const bool shaped = values.size() == 3 && values[0].tag == XGPU_PRINT_TAG_STR &&
                          values[1].tag == XGPU_PRINT_TAG_STR && values[2].tag == XGPU_PRINT_TAG_U64;
      line.text = shaped ? values[1].string + ":" + std::to_string(values[2].bits) + ": " + values[0].string
                         : "(an assert record of another shape)";
    } else if (values.empty() || values[0].tag != XGPU_PRINT_TAG_STR) {
      line.text = "(a printf record without its format)";
    } else {
      const std::string format = values[0].string;
      values.erase(values.begin());
      line.text = format_print(format, values);
      if (!line.text.empty() && line.text.back() == '\n') line.text.pop_back();
    }
    result.lines.push_back(std::move(line));
    at = end;
  }
  return result;
}

}  // namespace xgpu::amdgpu
