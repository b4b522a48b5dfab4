NAME        RMBoost_primal
ROWS
 N  Obj     
 L  upper_0 
 L  upper_1 
 L  upper_2 
 G  lower_0 
 G  lower_1 
 G  lower_2 
COLUMNS
    mu_plus_0  Obj       -0.23333333333333331
    mu_plus_0  upper_0   1
    mu_plus_0  upper_1   1
    mu_plus_0  upper_2   -1
    mu_plus_0  lower_0   1
    mu_plus_0  lower_1   1
    mu_plus_0  lower_2   -1
    mu_plus_1  Obj       -0.23333333333333331
    mu_plus_1  upper_0   1
    mu_plus_1  upper_1   -1
    mu_plus_1  upper_2   1
    mu_plus_1  lower_0   1
    mu_plus_1  lower_1   -1
    mu_plus_1  lower_2   1
    mu_minus_0  Obj       0.43333333333333335
    mu_minus_0  upper_0   -1
    mu_minus_0  upper_1   -1
    mu_minus_0  upper_2   1
    mu_minus_0  lower_0   -1
    mu_minus_0  lower_1   -1
    mu_minus_0  lower_2   1
    mu_minus_1  Obj       0.43333333333333335
    mu_minus_1  upper_0   -1
    mu_minus_1  upper_1   1
    mu_minus_1  upper_2   -1
    mu_minus_1  lower_0   -1
    mu_minus_1  lower_1   1
    mu_minus_1  lower_2   -1
RHS
    RHS_V     Obj       -0.5
    RHS_V     upper_0   0.5
    RHS_V     upper_1   0.5
    RHS_V     upper_2   0.5
    RHS_V     lower_0   -0.5
    RHS_V     lower_1   -0.5
    RHS_V     lower_2   -0.5
ENDATA
