// user_cxx.cc -- a C++ program built through FindMPI's MPI::MPI_CXX.
#include <mpi.h>

#include <complex>
#include <iostream>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::complex<double> z(1.0, rank), sum;
    MPI_Allreduce(&z, &sum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    bool ok = sum == std::complex<double>(size, size * (size - 1) / 2);
    if (rank == 0 && ok)
        std::cout << "user_cxx: " << size << " ranks ok" << std::endl;
    MPI_Finalize();
    return ok ? 0 : 1;
}
