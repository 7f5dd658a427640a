/*
 * torch_backend.cpp - ProcessGroupSymheap's Work, its construction and the
 * conversions every operation shares (dtypes, reduce ops, deadlines,
 * errors).  The operations are in torch_backend_ops.cpp.
 */
#include "torch_backend.hpp"

#include <ATen/core/ivalue.h>
#include <stdexcept>

namespace symheap_torch
{

WorkSymheap::WorkSymheap(c10d::OpType type, std::vector<at::Tensor> outputs,
                         std::exception_ptr error, int source_rank)
    : c10d::Work(-1, type), outputs_(std::move(outputs)), source_rank_(source_rank)
{
    static const c10::TypePtr tensor_list = c10::ListType::create(c10::TensorType::get());
    future_ = c10::make_intrusive<c10::ivalue::Future>(tensor_list);
    if (error)
        future_->setError(error);
    else
        future_->markCompleted(c10::IValue(outputs_));
    finish(error);
}

bool WorkSymheap::isCompleted()
{
    return true;
}

bool WorkSymheap::isSuccess() const
{
    std::lock_guard<std::mutex> g(mutex_);
    return !exception_;
}

std::exception_ptr WorkSymheap::exception() const
{
    std::lock_guard<std::mutex> g(mutex_);
    return exception_;
}

int WorkSymheap::sourceRank() const
{
    TORCH_CHECK(source_rank_ >= 0,
                "symheap: sourceRank() is only available for a receive from any source");
    return source_rank_;
}

std::vector<at::Tensor> WorkSymheap::result()
{
    return outputs_;
}

void WorkSymheap::synchronize()
{
}

// The operation already ran: waiting only reports its outcome.
bool WorkSymheap::wait(std::chrono::milliseconds)
{
    std::exception_ptr e = exception();
    if (e)
        std::rethrow_exception(e);
    return true;
}

void WorkSymheap::abort()
{
}

c10::intrusive_ptr<c10::ivalue::Future> WorkSymheap::getFuture()
{
    return future_;
}

ProcessGroupSymheap::ProcessGroupSymheap(int rank, int size, sym_team_t team, double timeout_s)
    : c10d::ProcessGroup(rank, size), team_(team), timeout_s_(timeout_s)
{
    TORCH_CHECK(sym_initialized(), "symheap: ProcessGroupSymheap needs an initialised symheap "
                                   "job (import symheap.torch and use init_process_group)");
    TORCH_CHECK(sym_team_my_pe(team) == rank && sym_team_n_pes(team) == size,
                "symheap: the group's rank ", rank, " of ", size, " is PE ", sym_team_my_pe(team),
                " of ", sym_team_n_pes(team), " in symheap team ", sym_team_name(team));
    init();
}

// A group never released keeps its team until the job ends (sym_finalize):
// sym_team_destroy is collective, and Python frees process groups at
// different moments on different ranks.
ProcessGroupSymheap::~ProcessGroupSymheap() = default;

void ProcessGroupSymheap::release()
{
    sym_status_t st = SYM_OK;
    {
        std::lock_guard<std::mutex> g(op_lock());
        if (released_)
            return;
        released_ = true;
        if (team_ != sym_team_world())
            st = sym_team_destroy(team_);
    }
    check(st, "destroy_process_group (sym_team_destroy)");
}

void ProcessGroupSymheap::check_live(c10d::OpType type) const
{
    TORCH_CHECK(!released_, "symheap ", c10d::opTypeToString(type),
                ": the process group was destroyed (destroy_process_group)");
}

std::mutex &op_lock()
{
    static std::mutex m;
    return m;
}

const std::string &profiler_name(c10d::OpType type)
{
    static const std::string unknown = "symheap:" + c10d::opTypeToString(c10d::OpType::UNKNOWN);
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (int t = 0; t <= int(c10d::OpType::_REDUCE_SCATTER_BASE); t++)
            v.push_back("symheap:" + c10d::opTypeToString(c10d::OpType(t)));
        return v;
    }();
    size_t i = size_t(type);
    return i < names.size() ? names[i] : unknown;
}

sym_datatype_t datatype_of(const at::Tensor &t, const char *op)
{
    switch (t.scalar_type()) {
    case at::kFloat:
        return SYM_FLOAT;
    case at::kDouble:
        return SYM_DOUBLE;
    case at::kHalf:
        return SYM_FLOAT16;
    case at::kBFloat16:
        return SYM_BFLOAT16;
    case at::kChar:
        return SYM_INT8;
    case at::kShort:
        return SYM_INT16;
    case at::kInt:
        return SYM_INT32;
    case at::kLong:
        return SYM_INT64;
    case at::kByte:
        return SYM_UINT8;
    case at::kBool:
        return SYM_UINT8;
    default:
        TORCH_CHECK(false, "symheap ", op, ": unsupported dtype ", t.scalar_type(),
                    " (float32/64, float16, bfloat16, int8/16/32/64, uint8 and bool are)");
    }
    return SYM_UINT8;
}

sym_op_t op_of(const c10d::ReduceOp &op, const at::Tensor &t, const char *opname)
{
    bool is_bool = t.scalar_type() == at::kBool;
    bool is_float = at::isFloatingType(t.scalar_type());
    switch (op.op_) {
    case c10d::ReduceOp::SUM:
        return is_bool ? SYM_OP_BOR : SYM_OP_SUM;
    case c10d::ReduceOp::AVG:
        TORCH_CHECK(!is_bool, "symheap ", opname, ": ReduceOp.AVG is not defined for bool");
        return SYM_OP_AVG;
    case c10d::ReduceOp::PRODUCT:
        return is_bool ? SYM_OP_BAND : SYM_OP_PROD;
    case c10d::ReduceOp::MIN:
        return is_bool ? SYM_OP_BAND : SYM_OP_MIN;
    case c10d::ReduceOp::MAX:
        return is_bool ? SYM_OP_BOR : SYM_OP_MAX;
    case c10d::ReduceOp::BAND:
    case c10d::ReduceOp::BOR:
    case c10d::ReduceOp::BXOR:
        TORCH_CHECK(!is_float, "symheap ", opname, ": bitwise ReduceOp on floating dtype ",
                    t.scalar_type());
        return op.op_ == c10d::ReduceOp::BAND  ? SYM_OP_BAND
               : op.op_ == c10d::ReduceOp::BOR ? SYM_OP_BOR
                                               : SYM_OP_BXOR;
    default:
        TORCH_CHECK(false, "symheap ", opname, ": ReduceOp ", int(op.op_),
                    " (PREMUL_SUM) is not supported: only SUM, AVG, PRODUCT, MIN, MAX, BAND, "
                    "BOR and BXOR are");
    }
    return SYM_OP_SUM;
}

sym_coll_opts_t coll_opts(std::chrono::milliseconds timeout, double group_timeout_s)
{
    sym_coll_opts_t o{};
    o.algorithm = SYM_ALGO_AUTO;
    o.timeout_s = timeout.count() > 0 ? double(timeout.count()) / 1000.0 : group_timeout_s;
    return o;
}

void check(sym_status_t st, const char *op)
{
    if (st == SYM_OK)
        return;
    const char *msg = sym_last_error();
    throw std::runtime_error(std::string("symheap ") + op + ": " +
                             (msg && *msg ? msg : sym_strerror(st)) + " (" + sym_status_name(st) +
                             ")");
}

void check_cpu(const at::Tensor &t, const char *op)
{
    TORCH_CHECK(t.device().is_cpu(), "symheap ", op, ": tensors must be on the CPU, got ",
                t.device());
    TORCH_CHECK(!t.is_sparse(), "symheap ", op, ": sparse tensors are not supported");
}

} // namespace symheap_torch
