#include <mab/evidence.hpp>

namespace mab {

std::string Evidence::text() const {
  const std::string more = detail.empty() ? "" : " (" + detail + ")";
  switch (level) {
    case EvidenceLevel::absent: return "absent";
    case EvidenceLevel::decoded: return "decoded" + more;
    case EvidenceLevel::hypothesis: return "hypothesis " + std::to_string(hypothesis) + " accepted" + more;
    case EvidenceLevel::opaque: return "opaque: " + detail;
  }
  return "absent";
}

}  // namespace mab
