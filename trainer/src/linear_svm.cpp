#include "cascadekit/trainer/linear_svm.hpp"

#include <linear.h>

#include <memory>
#include <stdexcept>

namespace cascadekit {

namespace {
void quiet(const char*) {}
struct ModelDeleter {
    void operator()(model* m) const { free_and_destroy_model(&m); }
};
}  // namespace

LinearSvm train_linear_svm(const std::vector<float>& features, int dims, const std::vector<int>& labels,
                           const std::vector<int>& rows, double C) {
    static const bool silenced = (set_print_string_function(quiet), true);  // LIBLINEAR prints to stdout
    (void)silenced;
    const std::size_t n = rows.size();
    // Each row: dims features, the bias feature (index dims+1, value 1), the terminator.
    std::vector<feature_node> nodes(n * static_cast<std::size_t>(dims + 2));
    std::vector<feature_node*> x(n);
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) {
        feature_node* row = nodes.data() + i * static_cast<std::size_t>(dims + 2);
        const float* f = features.data() + static_cast<std::size_t>(rows[i]) * dims;
        for (int k = 0; k < dims; ++k) row[k] = {k + 1, static_cast<double>(f[k])};
        row[dims] = {dims + 1, 1.0};
        row[dims + 1] = {-1, 0.0};
        x[i] = row;
        y[i] = labels[static_cast<std::size_t>(rows[i])];
    }
    problem prob{};
    prob.l = static_cast<int>(n);
    prob.n = dims + 1;
    prob.y = y.data();
    prob.x = x.data();
    prob.bias = 1.0;
    parameter param{};
    param.solver_type = L2R_L2LOSS_SVC;
    param.eps = 0.01;
    param.C = C;
    if (const char* err = check_parameter(&prob, &param)) throw std::runtime_error(std::string("LIBLINEAR: ") + err);
    std::unique_ptr<model, ModelDeleter> m(train(&prob, &param));
    LinearSvm out;
    out.weights.resize(static_cast<std::size_t>(dims));
    // LIBLINEAR's decision value is for label[0]; make it the positive class.
    const double sign = (m->nr_class == 2 && m->label[0] == -1) ? -1.0 : 1.0;
    if (m->nr_class < 2) {  // a single class in the sample: a constant classifier
        std::fill(out.weights.begin(), out.weights.end(), 0.0f);
        out.bias = m->label[0] == 1 ? -1.0f : 1.0f;
        return out;
    }
    for (int k = 0; k < dims; ++k) out.weights[static_cast<std::size_t>(k)] = static_cast<float>(sign * m->w[k]);
    out.bias = static_cast<float>(-sign * m->w[dims]);
    return out;
}

}  // namespace cascadekit
