/*
 * torch_backend_ops.cpp - the operations of ProcessGroupSymheap.  Arguments
 * are checked before any rank enters symheap (a wrong tensor count or size
 * raises at once, on that rank); a failure inside symheap (mismatched
 * calls across ranks, a lost peer, a deadline) is kept in the returned
 * Work, whose wait() raises it.  A contiguous tensor is used where it
 * is, never copied; a list of tensors that lie back to back in memory (views
 * of one buffer, as torch.chunk and split make them) is used as that one
 * buffer.  Non-contiguous tensors, and lists elsewhere, are copied to a
 * contiguous buffer and the results copied back.
 */
#include "torch_backend.hpp"

#include <ATen/ATen.h>

namespace symheap_torch
{

using c10d::OpType;
using c10d::Work;
using WorkPtr = c10::intrusive_ptr<Work>;

namespace
{

void check_one(const std::vector<at::Tensor> &ts, const char *op)
{
    TORCH_CHECK(ts.size() == 1, "symheap ", op, ": expects one tensor per call, got ", ts.size());
    check_cpu(ts[0], op);
}

void check_like(const at::Tensor &t, const at::Tensor &ref, const char *op, const char *what)
{
    check_cpu(t, op);
    TORCH_CHECK(t.scalar_type() == ref.scalar_type(), "symheap ", op, ": ", what, " has dtype ",
                t.scalar_type(), ", the input ", ref.scalar_type());
    TORCH_CHECK(t.numel() == ref.numel(), "symheap ", op, ": ", what, " has ", t.numel(),
                " elements, the input ", ref.numel());
}

size_t n_of(const at::Tensor &t)
{
    return size_t(t.numel());
}

// Copy `flat`'s consecutive blocks into `outs` (each its own shape).
void unpack(const at::Tensor &flat, std::vector<at::Tensor> &outs)
{
    int64_t off = 0;
    for (auto &o : outs) {
        o.copy_(flat.narrow(0, off, o.numel()).view(o.sizes()));
        off += o.numel();
    }
}

at::Tensor pack(const std::vector<at::Tensor> &ins)
{
    std::vector<at::Tensor> flat;
    flat.reserve(ins.size());
    for (auto &t : ins)
        flat.push_back(t.reshape({-1}));
    return at::cat(flat);
}

// The first byte of `ts` when they lie back to back in memory, in order,
// each contiguous and of one dtype, so that a collective can read or write
// all of them as one buffer; nullptr otherwise (and for an empty list).
// Empty tensors take no room and are skipped.
void *adjacent(const std::vector<at::Tensor> &ts)
{
    char *base = nullptr, *next = nullptr;
    for (auto &t : ts) {
        if (!t.is_contiguous() || t.scalar_type() != ts[0].scalar_type())
            return nullptr;
        if (t.numel() == 0)
            continue;
        char *p = static_cast<char *>(t.data_ptr());
        if (next && p != next)
            return nullptr;
        base = base ? base : p;
        next = p + t.nbytes();
    }
    return base;
}

// A list of tensors as one flat buffer of `numel` elements: the tensors'
// own memory when adjacent(), else a new buffer (an input list packed into
// it, an output list filled from it by write_back()).
struct FlatList {
    std::vector<at::Tensor> ts;
    at::Tensor copy;
    void *base;
    FlatList(const std::vector<at::Tensor> &list, bool input, const at::TensorOptions &o,
             int64_t numel)
        : ts(list), base(adjacent(list))
    {
        if (!base && numel > 0) {
            copy = input ? pack(ts) : at::empty({numel}, o);
            base = copy.data_ptr();
        }
    }
    void *ptr()
    {
        return base;
    }
    void write_back()
    {
        if (copy.defined())
            unpack(copy, ts);
    }
};

// The result tensor of an in-place op on t: t itself when contiguous, else
// a contiguous copy that write_back() copies into t.
struct Staged {
    at::Tensor t, c;
    explicit Staged(at::Tensor &x) : t(x), c(x.contiguous())
    {
    }
    void *ptr()
    {
        return c.data_ptr();
    }
    void write_back()
    {
        if (!c.is_same(t))
            t.copy_(c);
    }
};

} // namespace

WorkPtr ProcessGroupSymheap::broadcast(std::vector<at::Tensor> &ts,
                                       const c10d::BroadcastOptions &opts)
{
    check_one(ts, "broadcast");
    sym_datatype_t dt = datatype_of(ts[0], "broadcast");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::BROADCAST, ts, [&] {
        Staged s(ts[0]);
        check(sym_broadcast(team_, s.ptr(), n_of(s.c), dt, int(opts.rootRank), &o), "broadcast");
        s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::allreduce(std::vector<at::Tensor> &ts,
                                       const c10d::AllreduceOptions &opts)
{
    check_one(ts, "allreduce");
    sym_datatype_t dt = datatype_of(ts[0], "allreduce");
    sym_op_t op = op_of(opts.reduceOp, ts[0], "allreduce");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::ALLREDUCE, ts, [&] {
        Staged s(ts[0]);
        check(sym_allreduce(team_, s.ptr(), s.ptr(), n_of(s.c), dt, op, &o), "allreduce");
        s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::allreduce_coalesced(std::vector<at::Tensor> &ts,
                                                 const c10d::AllreduceCoalescedOptions &opts)
{
    TORCH_CHECK(!ts.empty(), "symheap allreduce_coalesced: no tensors");
    for (auto &t : ts) {
        check_cpu(t, "allreduce_coalesced");
        TORCH_CHECK(t.scalar_type() == ts[0].scalar_type(),
                    "symheap allreduce_coalesced: tensors must share one dtype, got ",
                    t.scalar_type(), " and ", ts[0].scalar_type());
    }
    sym_datatype_t dt = datatype_of(ts[0], "allreduce_coalesced");
    sym_op_t op = op_of(opts.reduceOp, ts[0], "allreduce_coalesced");
    auto o = coll_opts(opts.timeout, timeout_s_);
    int64_t total = 0;
    for (auto &t : ts)
        total += t.numel();
    return run(OpType::ALLREDUCE_COALESCED, ts, [&] {
        FlatList f(ts, true, ts[0].options(), total);
        check(sym_allreduce(team_, f.ptr(), f.ptr(), size_t(total), dt, op, &o),
              "allreduce_coalesced");
        f.write_back();
    });
}

WorkPtr ProcessGroupSymheap::reduce(std::vector<at::Tensor> &ts, const c10d::ReduceOptions &opts)
{
    check_one(ts, "reduce");
    sym_datatype_t dt = datatype_of(ts[0], "reduce");
    sym_op_t op = op_of(opts.reduceOp, ts[0], "reduce");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::REDUCE, ts, [&] {
        Staged s(ts[0]);
        check(sym_reduce(team_, s.ptr(), s.ptr(), n_of(s.c), dt, op, int(opts.rootRank), &o),
              "reduce");
        if (int(opts.rootRank) == rank_)
            s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::allgather(std::vector<std::vector<at::Tensor>> &outs,
                                       std::vector<at::Tensor> &ins,
                                       const c10d::AllgatherOptions &opts)
{
    check_one(ins, "allgather");
    TORCH_CHECK(outs.size() == 1 && outs[0].size() == size_t(size_),
                "symheap allgather: expects one list of ", size_, " output tensors");
    for (auto &t : outs[0])
        check_like(t, ins[0], "allgather", "an output tensor");
    sym_datatype_t dt = datatype_of(ins[0], "allgather");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::ALLGATHER, outs[0], [&] {
        at::Tensor in = ins[0].contiguous();
        FlatList f(outs[0], false, in.options(), int64_t(size_) * in.numel());
        check(sym_all_gather(team_, f.ptr(), in.data_ptr(), n_of(in), dt, &o), "allgather");
        f.write_back();
    });
}

WorkPtr ProcessGroupSymheap::_allgather_base(at::Tensor &out, at::Tensor &in,
                                             const c10d::AllgatherOptions &opts)
{
    check_cpu(in, "_allgather_base");
    check_cpu(out, "_allgather_base");
    TORCH_CHECK(out.scalar_type() == in.scalar_type(), "symheap _allgather_base: output dtype ",
                out.scalar_type(), " differs from the input's ", in.scalar_type());
    TORCH_CHECK(out.numel() == int64_t(size_) * in.numel(), "symheap _allgather_base: output has ",
                out.numel(), " elements, not group size ", size_, " x the input's ", in.numel());
    sym_datatype_t dt = datatype_of(in, "_allgather_base");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::_ALLGATHER_BASE, {out}, [&] {
        at::Tensor ic = in.contiguous();
        Staged s(out);
        check(sym_all_gather(team_, s.ptr(), ic.data_ptr(), n_of(ic), dt, &o), "_allgather_base");
        s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::allgather_coalesced(std::vector<std::vector<at::Tensor>> &outs,
                                                 std::vector<at::Tensor> &ins,
                                                 const c10d::AllgatherOptions &opts)
{
    TORCH_CHECK(outs.size() == ins.size(), "symheap allgather_coalesced: ", outs.size(),
                " output lists for ", ins.size(), " inputs");
    for (size_t k = 0; k < ins.size(); k++) {
        check_cpu(ins[k], "allgather_coalesced");
        datatype_of(ins[k], "allgather_coalesced");
        TORCH_CHECK(outs[k].size() == size_t(size_), "symheap allgather_coalesced: output list ", k,
                    " has ", outs[k].size(), " tensors, not the group size ", size_);
        for (auto &t : outs[k])
            check_like(t, ins[k], "allgather_coalesced", "an output tensor");
    }
    auto o = coll_opts(opts.timeout, timeout_s_);
    std::vector<at::Tensor> all;
    for (auto &l : outs)
        all.insert(all.end(), l.begin(), l.end());
    return run(OpType::ALLGATHER_COALESCED, all, [&] {
        for (size_t k = 0; k < ins.size(); k++) {
            at::Tensor in = ins[k].contiguous();
            FlatList f(outs[k], false, in.options(), int64_t(size_) * in.numel());
            check(sym_all_gather(team_, f.ptr(), in.data_ptr(), n_of(in),
                                 datatype_of(in, "allgather_coalesced"), &o),
                  "allgather_coalesced");
            f.write_back();
        }
    });
}

WorkPtr ProcessGroupSymheap::gather(std::vector<std::vector<at::Tensor>> &outs,
                                    std::vector<at::Tensor> &ins, const c10d::GatherOptions &opts)
{
    check_one(ins, "gather");
    int root = int(opts.rootRank);
    if (rank_ == root) {
        TORCH_CHECK(outs.size() == 1 && outs[0].size() == size_t(size_),
                    "symheap gather: the root expects one list of ", size_, " output tensors");
        for (auto &t : outs[0])
            check_like(t, ins[0], "gather", "an output tensor");
    } else {
        TORCH_CHECK(outs.empty(), "symheap gather: only the root passes output tensors");
    }
    sym_datatype_t dt = datatype_of(ins[0], "gather");
    auto o = coll_opts(opts.timeout, timeout_s_);
    std::vector<at::Tensor> result = outs.empty() ? std::vector<at::Tensor>() : outs[0];
    return run(OpType::GATHER, result, [&] {
        at::Tensor in = ins[0].contiguous();
        FlatList f(result, false, in.options(), rank_ == root ? int64_t(size_) * in.numel() : 0);
        check(sym_gather(team_, f.ptr(), in.data_ptr(), n_of(in), dt, root, &o), "gather");
        f.write_back();
    });
}

WorkPtr ProcessGroupSymheap::scatter(std::vector<at::Tensor> &outs,
                                     std::vector<std::vector<at::Tensor>> &ins,
                                     const c10d::ScatterOptions &opts)
{
    check_one(outs, "scatter");
    int root = int(opts.rootRank);
    if (rank_ == root) {
        TORCH_CHECK(ins.size() == 1 && ins[0].size() == size_t(size_),
                    "symheap scatter: the root expects one list of ", size_, " input tensors");
        for (auto &t : ins[0])
            check_like(t, outs[0], "scatter", "an input tensor");
    } else {
        TORCH_CHECK(ins.empty(), "symheap scatter: only the root passes input tensors");
    }
    sym_datatype_t dt = datatype_of(outs[0], "scatter");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::SCATTER, outs, [&] {
        Staged s(outs[0]);
        FlatList f(rank_ == root ? ins[0] : std::vector<at::Tensor>(), true, s.c.options(),
                   rank_ == root ? int64_t(size_) * s.c.numel() : 0);
        check(sym_scatter(team_, s.ptr(), f.ptr(), n_of(s.c), dt, root, &o), "scatter");
        s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::reduce_scatter(std::vector<at::Tensor> &outs,
                                            std::vector<std::vector<at::Tensor>> &ins,
                                            const c10d::ReduceScatterOptions &opts)
{
    check_one(outs, "reduce_scatter");
    TORCH_CHECK(ins.size() == 1 && ins[0].size() == size_t(size_),
                "symheap reduce_scatter: expects one list of ", size_, " input tensors");
    for (auto &t : ins[0])
        check_like(t, outs[0], "reduce_scatter", "an input tensor");
    sym_datatype_t dt = datatype_of(outs[0], "reduce_scatter");
    sym_op_t op = op_of(opts.reduceOp, outs[0], "reduce_scatter");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::REDUCE_SCATTER, outs, [&] {
        Staged s(outs[0]);
        FlatList f(ins[0], true, s.c.options(), int64_t(size_) * s.c.numel());
        check(sym_reduce_scatter(team_, s.ptr(), f.ptr(), n_of(s.c), dt, op, &o), "reduce_scatter");
        s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::_reduce_scatter_base(at::Tensor &out, at::Tensor &in,
                                                  const c10d::ReduceScatterOptions &opts)
{
    check_cpu(in, "_reduce_scatter_base");
    check_cpu(out, "_reduce_scatter_base");
    TORCH_CHECK(out.scalar_type() == in.scalar_type(),
                "symheap _reduce_scatter_base: output "
                "dtype ",
                out.scalar_type(), " differs from the input's ", in.scalar_type());
    TORCH_CHECK(in.numel() == int64_t(size_) * out.numel(),
                "symheap _reduce_scatter_base: input "
                "has ",
                in.numel(), " elements, not group size ", size_, " x the output's ", out.numel());
    sym_datatype_t dt = datatype_of(out, "_reduce_scatter_base");
    sym_op_t op = op_of(opts.reduceOp, out, "_reduce_scatter_base");
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::_REDUCE_SCATTER_BASE, {out}, [&] {
        at::Tensor ic = in.contiguous();
        Staged s(out);
        check(sym_reduce_scatter(team_, s.ptr(), ic.data_ptr(), n_of(s.c), dt, op, &o),
              "_reduce_scatter_base");
        s.write_back();
    });
}

namespace
{

// Element counts per rank of an all-to-all along dim 0: `splits` rows each
// (even when empty).
std::vector<size_t> split_counts(const at::Tensor &t, const std::vector<int64_t> &splits, int n,
                                 const char *what)
{
    std::vector<size_t> c(size_t(n), 0);
    int64_t rows = t.dim() ? t.size(0) : t.numel();
    int64_t row = rows ? t.numel() / rows : 0;
    if (splits.empty()) {
        TORCH_CHECK(rows % n == 0, "symheap alltoall_base: ", what, " has ", rows,
                    " rows, not divisible by the group size ", n, " (pass split sizes)");
        for (auto &x : c)
            x = size_t(rows / n * row);
        return c;
    }
    TORCH_CHECK(splits.size() == size_t(n), "symheap alltoall_base: ", splits.size(), " ", what,
                " split sizes for a group of ", n);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        TORCH_CHECK(splits[size_t(i)] >= 0, "symheap alltoall_base: negative split size");
        c[size_t(i)] = size_t(splits[size_t(i)] * row);
        sum += splits[size_t(i)];
    }
    TORCH_CHECK(sum == rows, "symheap alltoall_base: ", what, " split sizes sum to ", sum,
                " but the tensor has ", rows, " rows");
    return c;
}

} // namespace

WorkPtr ProcessGroupSymheap::alltoall_base(at::Tensor &out, at::Tensor &in,
                                           std::vector<int64_t> &out_splits,
                                           std::vector<int64_t> &in_splits,
                                           const c10d::AllToAllOptions &opts)
{
    check_cpu(in, "alltoall_base");
    check_cpu(out, "alltoall_base");
    TORCH_CHECK(out.scalar_type() == in.scalar_type(), "symheap alltoall_base: output dtype ",
                out.scalar_type(), " differs from the input's ", in.scalar_type());
    sym_datatype_t dt = datatype_of(in, "alltoall_base");
    auto sc = split_counts(in, in_splits, size_, "input");
    auto rc = split_counts(out, out_splits, size_, "output");
    auto o = coll_opts(opts.timeout, timeout_s_);
    bool even = in_splits.empty() && out_splits.empty();
    TORCH_CHECK(!even || in.numel() == out.numel(), "symheap alltoall_base: input has ", in.numel(),
                " elements, the output ", out.numel());
    return run(OpType::ALLTOALL_BASE, {out}, [&] {
        at::Tensor ic = in.contiguous();
        Staged s(out);
        if (even)
            check(sym_all_to_all(team_, s.ptr(), ic.data_ptr(), sc[0], dt, &o), "alltoall_base");
        else
            check(sym_all_to_allv(team_, ic.data_ptr(), sc.data(), s.ptr(), rc.data(), dt, &o),
                  "alltoall_base");
        s.write_back();
    });
}

WorkPtr ProcessGroupSymheap::alltoall(std::vector<at::Tensor> &outs, std::vector<at::Tensor> &ins,
                                      const c10d::AllToAllOptions &opts)
{
    TORCH_CHECK(outs.size() == size_t(size_) && ins.size() == size_t(size_),
                "symheap alltoall: expects ", size_, " input and output tensors, got ", ins.size(),
                " and ", outs.size());
    for (size_t i = 0; i < ins.size(); i++) {
        check_cpu(ins[i], "alltoall");
        check_cpu(outs[i], "alltoall");
        TORCH_CHECK(ins[i].scalar_type() == ins[0].scalar_type() &&
                        outs[i].scalar_type() == ins[0].scalar_type(),
                    "symheap alltoall: all tensors must share one dtype");
    }
    sym_datatype_t dt = datatype_of(ins[0], "alltoall");
    std::vector<size_t> sc, rc;
    for (size_t i = 0; i < ins.size(); i++) {
        sc.push_back(n_of(ins[i]));
        rc.push_back(n_of(outs[i]));
    }
    auto o = coll_opts(opts.timeout, timeout_s_);
    int64_t sent = 0, received = 0;
    for (size_t i = 0; i < ins.size(); i++)
        sent += int64_t(sc[i]), received += int64_t(rc[i]);
    return run(OpType::ALLTOALL, outs, [&] {
        FlatList in(ins, true, ins[0].options(), sent);
        FlatList out(outs, false, ins[0].options(), received);
        check(sym_all_to_allv(team_, in.ptr(), sc.data(), out.ptr(), rc.data(), dt, &o),
              "alltoall");
        out.write_back();
    });
}

WorkPtr ProcessGroupSymheap::barrier(const c10d::BarrierOptions &opts)
{
    auto o = coll_opts(opts.timeout, timeout_s_);
    return run(OpType::BARRIER, {}, [&] { check(sym_barrier(team_, &o), "barrier"); });
}

} // namespace symheap_torch
